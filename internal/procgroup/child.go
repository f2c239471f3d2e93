package procgroup

import (
	"bytes"
	"os/exec"
	"sync/atomic"
)

// KillOnCancel starts cmd in its own process group (Set) and makes the end of its context
// kill the whole group rather than the leader alone. killed reports whether that happened.
func KillOnCancel(cmd *exec.Cmd) (killed func() bool) {
	var k atomic.Bool
	Set(cmd)
	cmd.Cancel = func() error {
		k.Store(true)
		return Kill(cmd.Process)
	}
	return k.Load
}

// Capped keeps the first Max bytes written to it and counts, then discards, the rest, so a
// child writing forever never blocks on a full pipe and memory stays bounded.
type Capped struct {
	Max     int
	Dropped int64 // bytes discarded
	buf     bytes.Buffer
}

func (w *Capped) Write(p []byte) (int, error) {
	if room := w.Max - w.buf.Len(); room < len(p) {
		w.Dropped += int64(len(p) - max(room, 0))
		w.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return w.buf.Write(p)
}

// Bytes is what was kept.
func (w *Capped) Bytes() []byte { return w.buf.Bytes() }

func (w *Capped) String() string { return w.buf.String() }
