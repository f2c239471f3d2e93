// Package logbatch writes a log's records in batches: a server that logs every request
// makes one write per batch instead of one per request, which on a busy server is most of
// what its log costs.
package logbatch

import (
	"io"
	"sync"
	"time"
)

// Writer holds whole records written to it and writes them to the underlying writer together:
// when they fill its buffer, when the oldest has waited its delay, and at Flush. A record
// (one Write) is never split, so records of other writers of the same file stay whole
// between them.
type Writer struct {
	w     io.Writer
	size  int
	delay time.Duration

	mu    sync.Mutex
	buf   []byte
	timer *time.Timer // the pending delayed flush; nil when the buffer is empty
}

// New returns a Writer to w that holds up to size bytes, each record at most delay.
func New(w io.Writer, size int, delay time.Duration) *Writer {
	return &Writer{w: w, size: size, delay: delay}
}

// Write adds the record p to the batch. It fails only when writing out the batch fails.
func (b *Writer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.buf) > 0 && len(b.buf)+len(p) > b.size {
		if err := b.flush(); err != nil {
			return 0, err
		}
	}
	b.buf = append(b.buf, p...)
	if len(b.buf) >= b.size {
		return len(p), b.flush()
	}
	if b.timer == nil {
		b.timer = time.AfterFunc(b.delay, func() { b.Flush() })
	}
	return len(p), nil
}

// Flush writes out what the batch holds.
func (b *Writer) Flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flush()
}

func (b *Writer) flush() error {
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if len(b.buf) == 0 {
		return nil
	}
	_, err := b.w.Write(b.buf)
	if cap(b.buf) > 4*b.size { // one huge record does not keep its buffer
		b.buf = nil
	} else {
		b.buf = b.buf[:0]
	}
	return err
}
