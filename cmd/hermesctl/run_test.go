package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestExitCodes(t *testing.T) {
	home := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plugins/broken/plugin.yaml", "name: broken\n")
	write("plugins/broken/handler.lua", `function register(ctx) ctx.register_hook("pre_llm_call", function() error("x") end) end`)
	write("list.json", "[1]")
	badHome := t.TempDir()
	os.WriteFile(filepath.Join(badHome, "config.yaml"), []byte("plugins: [\n"), 0o644)

	tests := []struct {
		args []string
		want int
	}{
		{[]string{"hooks", "test", "post_llm_call"}, exitOK},
		{[]string{"plugins", "list"}, exitOK},
		{[]string{"help"}, exitOK},
		{[]string{"frobnicate"}, exitUsage},
		{[]string{}, exitUsage},
		{[]string{"hooks", "test", "nope"}, exitUsage},
		{[]string{"hooks", "test", "pre_tool_call", "--bogus"}, exitUsage},
		{[]string{"hooks", "test"}, exitUsage},
		{[]string{"hooks", "test", "pre_llm_call"}, exitFailed},
		{[]string{"hooks", "test", "pre_tool_call", "--payload-file", filepath.Join(home, "missing.json")}, exitConfig},
		{[]string{"hooks", "test", "pre_tool_call", "--payload-file", filepath.Join(home, "list.json")}, exitConfig},
		{[]string{"--home", badHome, "plugins", "list"}, exitConfig},
	}
	for _, tt := range tests {
		var out, errOut bytes.Buffer
		args := append([]string{"--home", home}, tt.args...)
		if got := run(context.Background(), args, nil, &out, &errOut); got != tt.want {
			t.Errorf("hermesctl %v: exit %d, want %d\nstderr: %s", tt.args, got, tt.want, errOut.String())
		}
	}
}
