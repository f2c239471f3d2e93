package shell

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCommand(t *testing.T) {
	t.Setenv("HOME", "/home/it's me")
	tests := []struct {
		cmd  string
		want []string
		err  error
	}{
		{"/bin/echo hi", []string{"/bin/echo", "hi"}, nil},
		{"  a \t b\n c  ", []string{"a", "b", "c"}, nil},
		{`"/tmp/dir with spaces/hook.sh" --x`, []string{"/tmp/dir with spaces/hook.sh", "--x"}, nil},
		{`'single $HOME' "double $HOME"`, []string{"single $HOME", "double $HOME"}, nil},
		{`a\ b c`, []string{"a b", "c"}, nil},
		{`"a\"b" "c\\d" "\d+" '\n'`, []string{`a"b`, `c\d`, `\d+`, `\n`}, nil},
		{"a\\\nb", []string{"ab"}, nil},
		{`'' x`, []string{"", "x"}, nil},
		{"~/hooks/x.sh ~ ~/y", []string{"/home/it's me/hooks/x.sh", "/home/it's me", "/home/it's me/y"}, nil},
		// Quoted or not, a word ~ or ~/... is the home: the user wrote ~ meaning home.
		{`'~/q' ~user a~/b "~"/c '~'`, []string{"/home/it's me/q", "~user", "a~/b", "/home/it's me/c", "/home/it's me"}, nil},
		{"./~/x \xff\xfe", []string{"./~/x", "\xff\xfe"}, nil}, // bytes kept as written
		// '#' is never a comment: no shell runs the command.
		{"hook.sh # comment words", []string{"hook.sh", "#", "comment", "words"}, nil},
		{"hook.sh #tag a#b '#q' \\#e", []string{"hook.sh", "#tag", "a#b", "#q", "#e"}, nil},
		{"#!/x", []string{"#!/x"}, nil},
		{"run 'oops", nil, ErrUnterminatedQuote},
		{`run "oops`, nil, ErrUnterminatedQuote},
		{`run "oops\"`, nil, ErrUnterminatedQuote},
		{`run \`, nil, ErrTrailingBackslash},
		{"", nil, ErrEmptyCommand},
		{" \t\n", nil, ErrEmptyCommand},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.cmd)
		if !errors.Is(err, tt.err) {
			t.Errorf("SplitCommand(%q): got error %v, want %v", tt.cmd, err, tt.err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SplitCommand(%q) (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

func TestSplitCommandReportsHashWords(t *testing.T) {
	r, err := resolveCommand(`x #a b#c '#d' \#e #f`, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"#a", "#f"}, r.HashWords); diff != "" {
		t.Errorf("hash words (-want +got):\n%s", diff)
	}
}
