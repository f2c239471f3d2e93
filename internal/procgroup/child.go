package procgroup

import (
	"bytes"
)

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
