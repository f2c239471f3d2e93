package procgroup

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// daemonScript starts a daemon that leaves the process group with setsid and writes its
// pid to the file $1, then runs the rest of the script.
const daemonScript = `setsid sh -c 'echo $$ > "$0"; exec sleep 300' "$1" </dev/null >/dev/null 2>&1 &
while [ ! -s "$1" ]; do :; done
`

// its process group, as well as the group.
func TestTrackKillsSetsidDaemonAtTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", daemonScript+`echo started; exec sleep 300`, "sh", pidFile)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	run := Track(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := out.Read(buf); err != nil { // "started": the daemon wrote its pid
		t.Fatal(err)
	}
	pid := testutil.ReadPid(t, pidFile)
	cancel()
	_ = cmd.Wait()
	if !run.Killed() {
		t.Error("Killed() = false after the context ended")
	}
	testutil.WaitGone(t, pid, "its run")
}

// TestTrackKillsWhatARunLeft: Kill after the command exited kills the daemon it left.
func TestTrackKillsWhatARunLeft(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	cmd := exec.CommandContext(context.Background(), "/bin/sh", "-c", daemonScript, "sh", pidFile)
	run := Track(cmd)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := testutil.ReadPid(t, pidFile)
	if testutil.ProcessGone(pid) {
		t.Fatal("the daemon did not outlive its parent: the test proves nothing")
	}
	if err := run.Kill(); err != nil {
		t.Errorf("Kill: %v", err)
	}
	if run.Killed() {
		t.Error("Killed() = true though the context never ended")
	}
	testutil.WaitGone(t, pid, "its run")
}

// TestTrackMarksTheEnvironment: the mark is added to the command's environment, after what
// it had, and an outer run's mark is kept.
func TestTrackMarksTheEnvironment(t *testing.T) {
	cmd := exec.Command("/bin/true")
	cmd.Env = []string{"A=1", MarkPrefix + "outer=1"}
	Track(cmd)
	if len(cmd.Env) != 3 || cmd.Env[0] != "A=1" || cmd.Env[1] != MarkPrefix+"outer=1" ||
		!strings.HasPrefix(cmd.Env[2], MarkPrefix) || !strings.HasSuffix(cmd.Env[2], "=1") {
		t.Errorf("env %q", cmd.Env)
	}
}
