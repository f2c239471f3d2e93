package consent

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// TestMain lets the test binary act as a separate process that approves one pair, for the
// cross-process locking test.
func TestMain(m *testing.M) {
	if os.Getenv("CONSENT_TEST_HELPER") == "approve" {
		os.Exit(helperApprove())
	}
	os.Exit(m.Run())
}

func helperApprove() int {
	s := Open(os.Getenv("CONSENT_TEST_PATH"), nil)
	if _, err := s.Approve(context.Background(), os.Getenv("CONSENT_TEST_EVENT"), os.Getenv("CONSENT_TEST_COMMAND")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func newLogger() (*slog.Logger, *testutil.Buffer) {
	lb := &testutil.Buffer{}
	return slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug})), lb
}

// testStore returns a Store on an allowlist in a fresh home, with HOME set to that home.
func testStore(t *testing.T) (*Store, *testutil.Buffer, string) {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	logger, lb := newLogger()
	return Open(DefaultPath(home), logger), lb, home
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// readDoc parses the allowlist file and fails the test if it is not fully valid.
func readDoc(t *testing.T, path string) *document {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseDocument(data)
	if len(doc.problems) > 0 {
		t.Fatalf("%s is not valid: %s\n%s", path, strings.Join(doc.problems, "; "), data)
	}
	return doc
}

func keysOf(list []Approval) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.Event + " " + a.Command
	}
	return out
}
