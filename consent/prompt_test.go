package consent

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

func TestPrompt(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"y\n", true}, {"YES\n", true}, {"  Yes \r\n", true}, {"y", true},
		{"n\n", false}, {"", false}, {"yess\n", false}, {"\n", false}, {"no\n", false}, {"yes please\n", false},
		{strings.Repeat(" ", 2000) + "yes\n", false},
		{"yes" + strings.Repeat(" ", 2000) + "x\n", false},
	}
	for _, tt := range tests {
		var out strings.Builder
		got := Prompt(context.Background(), strings.NewReader(tt.in), &out, "pre_tool_call", "~/hooks/x.sh --flag")
		if got != tt.want {
			t.Errorf("Prompt with answer %.20q = %v, want %v", tt.in, got, tt.want)
		}
		for _, want := range []string{"pre_tool_call", "~/hooks/x.sh --flag", "credentials", "[y/N]"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("prompt output lacks %q:\n%s", want, out.String())
			}
		}
	}
}

func TestPromptReadsOnlyItsLine(t *testing.T) {
	in := strings.NewReader("n\ny\n")
	if Prompt(context.Background(), in, io.Discard, "e", "first") {
		t.Error("first prompt approved on n")
	}
	if !Prompt(context.Background(), in, io.Discard, "e", "second") {
		t.Error("second prompt did not get its y")
	}
}

func TestPromptContext(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan bool, 1)
	go func() { done <- Prompt(ctx, pr, io.Discard, "e", "c") }()
	select {
	case got := <-done:
		t.Fatalf("Prompt returned %v before an answer", got)
	case <-time.After(20 * time.Millisecond):
	}
	cancel()
	if <-done {
		t.Error("cancelled prompt approved")
	}
	if Prompt(ctx, strings.NewReader("y\n"), io.Discard, "e", "c") {
		t.Error("prompt with a done context approved")
	}
	if Prompt(context.Background(), nil, nil, "e", "c") {
		t.Error("prompt without input approved")
	}
}

func TestPromptShowsControlCharactersQuoted(t *testing.T) {
	var out strings.Builder
	Prompt(context.Background(), strings.NewReader("n\n"), &out, "pre_tool_call", "evil\x1b[2K\rsafe.sh")
	if strings.Contains(out.String(), "\x1b") || !strings.Contains(out.String(), `"evil\x1b[2K\rsafe.sh"`) {
		t.Errorf("control characters not quoted:\n%q", out.String())
	}
}
