package consent

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noRead fails the test when a prompt reads an answer it should not have asked for.
type noRead struct{ t *testing.T }

func (r noRead) Read([]byte) (int, error) {
	r.t.Error("prompted although no prompt was expected")
	return 0, io.EOF
}

func TestDecide(t *testing.T) {
	const event, command = "pre_tool_call", "~/hook.sh"
	env := func(v string) func(string) string {
		return func(name string) string {
			if name == EnvAcceptHooks {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name     string
		decider  Decider
		want     bool
		wantHow  string
		wantLog  string
		wantFile bool // the approval is in the file afterwards
	}{
		{"no terminal, no bypass", Decider{Getenv: env("")}, false, "", "hermesctl hooks allow pre_tool_call '~/hook.sh'", false},
		{"rejected bypass values", Decider{Getenv: env("0"), ConfigAutoAccept: "false"}, false, "", "--accept-hooks, HERMES_ACCEPT_HOOKS=1 or hooks_auto_accept: true", false},
		{"config integer", Decider{Getenv: env("no"), ConfigAutoAccept: 1}, false, "", "hermesctl hooks allow", false},
		{"flag", Decider{AcceptFlag: true, Getenv: env("")}, true, ByFlag, "by=flag", true},
		{"env", Decider{Getenv: env(" Yes ")}, true, ByEnv, "by=env", true},
		{"config bool", Decider{Getenv: env(""), ConfigAutoAccept: true}, true, ByConfig, "by=config", true},
		{"config string", Decider{Getenv: env(""), ConfigAutoAccept: "on"}, true, ByConfig, "by=config", true},
		{"flag wins over prompt", Decider{AcceptFlag: true, Interactive: true}, true, ByFlag, "by=flag", true},
		{"prompt yes", Decider{Getenv: env(""), Interactive: true, In: strings.NewReader("y\n")}, true, ByPrompt, "by=prompt", true},
		{"prompt no", Decider{Getenv: env(""), Interactive: true, In: strings.NewReader("n\n")}, false, "", "not approved at the prompt", false},
		{"prompt EOF", Decider{Getenv: env(""), Interactive: true, In: strings.NewReader("")}, false, "", "not approved at the prompt", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _, home := testStore(t)
			writeFile(t, filepath.Join(home, "hook.sh"), "#!/bin/sh\n", 0o755)
			logger, lb := newLogger()
			d := tt.decider
			d.Store, d.Logger = s, logger
			var out strings.Builder
			d.Out = &out
			if d.In == nil {
				d.In = noRead{t}
			}
			got, how := d.Decide(context.Background(), event, command)
			if got != tt.want || how != tt.wantHow {
				t.Errorf("Decide = %v, %q; want %v, %q", got, how, tt.want, tt.wantHow)
			}
			if !strings.Contains(lb.String(), tt.wantLog) {
				t.Errorf("log lacks %q:\n%s", tt.wantLog, lb.String())
			}
			if !tt.want && strings.Count(lb.String(), "level=WARN") > 1 {
				t.Errorf("more than one warning:\n%s", lb.String())
			}
			_, inFile := Open(s.Path(), nil).Lookup(event, command)
			if inFile != tt.wantFile {
				t.Errorf("approval in file = %v, want %v", inFile, tt.wantFile)
			}
			if d.Interactive && tt.wantHow != ByFlag && !strings.Contains(out.String(), "credentials") {
				t.Errorf("prompt not shown:\n%s", out.String())
			}
		})
	}
}

func TestDecideApprovedPairDoesNotPrompt(t *testing.T) {
	s, _, _ := testStore(t)
	if _, err := s.Approve(context.Background(), "pre_tool_call", "x.sh"); err != nil {
		t.Fatal(err)
	}
	d := Decider{Store: Open(s.Path(), nil), Interactive: true, In: noRead{t}, Out: io.Discard, Getenv: func(string) string { return "" }}
	if got, how := d.Decide(context.Background(), "pre_tool_call", "x.sh"); !got || how != ByAllowlist {
		t.Errorf("Decide = %v, %q; want true, %q", got, how, ByAllowlist)
	}
	// Another event for the same command is another pair.
	d.Interactive = false
	if got, how := d.Decide(context.Background(), "post_tool_call", "x.sh"); got || how != "" {
		t.Errorf("Decide for another event = %v, %q; want false", got, how)
	}
}

func TestDecidePinnedDrift(t *testing.T) {
	s, _, home := testStore(t)
	script := filepath.Join(home, "hook.sh")
	writeFile(t, script, "#!/bin/sh\necho ok\n", 0o755)
	if _, err := s.Approve(context.Background(), "pre_tool_call", "~/hook.sh"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, script, "#!/bin/sh\necho changed\n", 0o755)
	noEnv := func(string) string { return "" }

	logger, lb := newLogger()
	d := Decider{Store: s, Mode: ModeCommand, Getenv: noEnv, Logger: logger}
	if got, how := d.Decide(context.Background(), "pre_tool_call", "~/hook.sh"); !got || how != ByAllowlist {
		t.Errorf("command mode: Decide = %v, %q; want approved from the allowlist", got, how)
	}
	if !strings.Contains(lb.String(), "content changed") {
		t.Errorf("command mode: drift not logged:\n%s", lb.String())
	}

	logger, lb = newLogger()
	d = Decider{Store: s, Mode: ModePinned, Getenv: noEnv, Logger: logger}
	if got, _ := d.Decide(context.Background(), "pre_tool_call", "~/hook.sh"); got {
		t.Error("pinned mode approved a changed script")
	}
	if !strings.Contains(lb.String(), "content changed") || !strings.Contains(lb.String(), "hermesctl hooks allow") {
		t.Errorf("pinned refusal does not say why and how:\n%s", lb.String())
	}

	var out strings.Builder
	d = Decider{Store: s, Mode: ModePinned, Getenv: noEnv, Interactive: true, In: strings.NewReader("yes\n"), Out: &out}
	if got, how := d.Decide(context.Background(), "pre_tool_call", "~/hook.sh"); !got || how != ByPrompt {
		t.Errorf("pinned re-approval at the prompt = %v, %q", got, how)
	}
	if !strings.Contains(out.String(), "Note: script content changed") {
		t.Errorf("prompt does not say the script changed:\n%s", out.String())
	}
	if st := s.Check("pre_tool_call", "~/hook.sh", ModePinned); !st.Approved || st.ContentDrift {
		t.Errorf("after re-approval: %+v, want approved without drift", st)
	}
}

func TestDecideWithoutStore(t *testing.T) {
	d := Decider{AcceptFlag: true}
	if got, _ := d.Decide(context.Background(), "e", "c"); got {
		t.Error("approved without a store")
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) || IsTerminal(nil) {
		t.Error("a regular file or nil is a terminal")
	}
}

// An http hook's URL is named without its query values and password wherever consent
// speaks of it: the warning of a hook not approved and its approve hint, the status's
// reason, the prompt, and the log of an approval; the hint, run as shown, names the URL
// hooks allow takes.
func TestDecideURLShownWithoutSecrets(t *testing.T) {
	const event, url = "pre_tool_call", "https://bob:Pw5ecret@guard.example/check?token=Q5ecret"
	target := Target{Event: event, Command: url, URL: true}
	for _, d := range []Decider{
		{Getenv: func(string) string { return "" }},
		{Getenv: func(string) string { return "" }, Interactive: true, In: strings.NewReader("n\n")},
		{Getenv: func(string) string { return "" }, AcceptFlag: true},
	} {
		s, _, _ := testStore(t)
		logger, lb := newLogger()
		var out strings.Builder
		d.Store, d.Logger, d.Out = s, logger, &out
		d.DecideTarget(context.Background(), target)
		st := Open(s.Path(), nil).CheckTarget(Target{Event: event, Command: url + "&other=1", URL: true}, ModeCommand)
		shown := lb.String() + out.String() + st.Reason
		if strings.Contains(shown, "5ecret") {
			t.Errorf("a secret of the URL is shown:\n%s", shown)
		}
		if !strings.Contains(shown, "https://%5Bredacted%5D@guard.example/check?token=[redacted]") {
			t.Errorf("the URL is not named:\n%s", shown)
		}
	}
}
