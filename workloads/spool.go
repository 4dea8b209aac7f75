package workloads

import (
	"fmt"
	"io"
	"os"
)

// spool holds one trial's trace on disk while it runs, so that a trace of
// any size costs constant memory: trials run in parallel but their traces
// are written in plan order, and a live trial's trace only once the trial
// counts (an interrupted one's never). The trace reaches the file through
// trial.Trace's 64 KiB buffer, and the file reaches the output by io.Copy.
type spool struct {
	f *os.File
}

// newSpool creates a spool in the temporary directory, named after this
// process so that what a killed run leaves is recognisable.
func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", fmt.Sprintf("electbench-trace-%d-*", os.Getpid()))
	if err != nil {
		return nil, fmt.Errorf("spooling a trace: %w", err)
	}
	return &spool{f: f}, nil
}

// Write appends to the trace.
func (s *spool) Write(p []byte) (int, error) { return s.f.Write(p) }

// copyTo writes the spooled trace to w.
func (s *spool) copyTo(w io.Writer) error {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("reading a spooled trace: %w", err)
	}
	if _, err := io.Copy(w, s.f); err != nil {
		return fmt.Errorf("writing trace: %w", err)
	}
	return nil
}

// discard removes the spool; a nil spool is none.
func (s *spool) discard() {
	if s != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}
