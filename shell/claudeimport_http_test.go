package shell

import (
	"strings"
	"testing"
)

func TestImportClaudeHTTPHooks(t *testing.T) {
	settings := `{
  "allowedHttpHookUrls": ["https://hooks.example.com/*"],
  "httpHookAllowedEnvVars": ["TOKEN"],
  "allowManagedHooksOnly": false,
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "http", "url": "https://hooks.example.com/guard", "timeout": 2.5, "headers": {"Authorization": "Bearer $TOKEN"}, "allowedEnvVars": ["TOKEN"]},
    {"type": "http", "url": "http://localhost:8080/guard"},
    {"type": "http", "url": "https://user:pw@hooks.example.com/"},
    {"type": "http"},
    {"type": "http", "url": "ftp://x/"}
  ]}]}
}`
	imp, err := ReadClaudeSettings("settings.json", []byte(settings))
	if err != nil {
		t.Fatal(err)
	}
	if len(imp.Entries) != 2 || imp.Entries[0].HTTP == nil || imp.Entries[0].Timeout != 3 ||
		imp.Entries[0].HTTP.Headers["Authorization"] != "Bearer $TOKEN" || imp.Entries[0].HTTP.AllowedEnvVars[0] != "TOKEN" {
		t.Fatalf("entries %+v", imp.Entries)
	}
	var notes, skipped string
	for _, n := range imp.Notes {
		notes += n.String() + "\n"
	}
	for _, n := range imp.Skipped {
		skipped += n.String() + "\n"
	}
	for _, want := range []string{"allowedHttpHookUrls: a managed setting", `allowed_http_urls: ["https://hooks.example.com/*"]`, "httpHookAllowedEnvVars: not imported", "hooks[1]: the URL is on this machine"} {
		if !strings.Contains(notes, want) {
			t.Errorf("no note %q in:\n%s", want, notes)
		}
	}
	if strings.Contains(notes, "allowManagedHooksOnly") {
		t.Errorf("allowManagedHooksOnly: false restricts nothing, yet noted:\n%s", notes)
	}
	for _, want := range []string{"hooks[2]: the url carries credentials", "hooks[3]: type http without a url", `hooks[4]: url "ftp://x/" is not`} {
		if !strings.Contains(skipped, want) {
			t.Errorf("no skip %q in:\n%s", want, skipped)
		}
	}
	// The entries written parse back as the same HTTP hooks, without warnings.
	out, added, err := AddToConfig("config.yaml", nil, imp.Entries)
	if err != nil || len(added) != 2 {
		t.Fatalf("AddToConfig: %v, added %d", err, len(added))
	}
	hooks, warns := ParseHooks("config.yaml", hooksNode(t, string(out)), testEvents)
	if len(warns) != 0 || len(hooks) != 2 || hooks[0].Type != TypeHTTP || hooks[0].Dialect != DialectClaude || hooks[0].HTTP.URL != "https://hooks.example.com/guard" || hooks[0].Matcher != "Bash" {
		t.Fatalf("parsed back %+v, warnings %v from:\n%s", hooks, warns, out)
	}
	if _, again, _ := AddToConfig("config.yaml", out, imp.Entries); len(again) != 0 {
		t.Errorf("imported twice: %+v", again)
	}
}
