package command

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  error
	}{
		{"/bin/echo hi", []string{"/bin/echo", "hi"}, nil},
		{"  a \t b\n c\r d  ", []string{"a", "b", "c", "d"}, nil},
		{"a\vb\fc", []string{"a\vb\fc"}, nil}, // only space, tab, CR and LF separate words
		{`"/tmp/dir with spaces/hook.sh" --x`, []string{"/tmp/dir with spaces/hook.sh", "--x"}, nil},
		{`'single $HOME' "double $HOME"`, []string{"single $HOME", "double $HOME"}, nil},
		{`a\ b c`, []string{"a b", "c"}, nil},
		{`"a\"b" "c\\d" "\d+" '\n' "\$x \` + "`" + `"`, []string{`a"b`, `c\d`, `\d+`, `\n`, "$x `"}, nil},
		{"a\\\nb c", []string{"ab", "c"}, nil},
		{`"line\` + "\n" + `cont"`, []string{"linecont"}, nil},
		{`ab""cd '' x`, []string{"abcd", "", "x"}, nil},
		{`'it''s'`, []string{"its"}, nil},
		{"hook.sh # comment words", []string{"hook.sh", "#", "comment", "words"}, nil},
		{"héllo wörld \xff\xfe", []string{"héllo", "wörld", "\xff\xfe"}, nil},
		{"", nil, nil},
		{" \t\n", nil, nil},
		{"run 'oops", nil, ErrUnterminatedQuote},
		{`run "oops`, nil, ErrUnterminatedQuote},
		{`run "oops\"`, nil, ErrUnterminatedQuote},
		{`run \`, nil, ErrTrailingBackslash},
	}
	for _, tt := range tests {
		got, _, err := split(tt.in)
		if !errors.Is(err, tt.err) {
			t.Errorf("split(%q): got error %v, want %v", tt.in, err, tt.err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("split(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestSplitReportsHashWords(t *testing.T) {
	_, hash, err := split(`x #a b#c '#d' \#e ""#g #f`)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"#a", "#f"}, hash); diff != "" {
		t.Errorf("hash words (-want +got):\n%s", diff)
	}
}

func TestSplitUnterminatedSaysWhere(t *testing.T) {
	_, _, err := split(`run "a" 'b`)
	if want := "unterminated quote: ' opened at offset 8 is never closed"; err == nil || err.Error() != want {
		t.Errorf("got error %v, want %q", err, want)
	}
}
