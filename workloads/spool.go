package workloads

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/electbench/electbench/internal/owner"
)

// spool holds one trial's trace on disk while it runs, so that a trace of
// any size costs constant memory: trials run in parallel but their traces
// are written in plan order, and a live trial's trace only once the trial
// counts (an interrupted one's never). The trace reaches the file through
// trial.Trace's 64 KiB buffer, and the file reaches the output by io.Copy.
type spool struct {
	f *os.File
}

// SpoolPattern begins the name of every trace spool in the temporary
// directory: electbench-trace-PID-TOKEN-RANDOM, TOKEN naming the process
// beyond its pid (owner.Token), "x" where it cannot be known.
const SpoolPattern = "electbench-trace-"

// newSpool creates a spool in the temporary directory, named after this
// process so that what a killed run leaves is recognised and, once the
// process is provably gone, removed (RemoveDeadSpools).
func newSpool() (*spool, error) {
	f, err := os.CreateTemp("", fmt.Sprintf("%s%d-%s-*", SpoolPattern, os.Getpid(), cmp.Or(owner.Token(), "x")))
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

// RemoveDeadSpools removes the trace spools in the temporary directory
// that runs killed before they could remove them left (SIGKILL left
// gigabytes): those of this user whose owner is provably dead, by its pid
// and token (owner.Dead). A spool whose owner may run, in another PID
// namespace or boot, or that names no token, is kept. It returns the
// paths removed; every run calls it as it starts, and electbench clean.
func RemoveDeadSpools() ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(os.TempDir(), SpoolPattern+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, p := range paths {
		pid, token, ok := spoolOwner(filepath.Base(p))
		if !ok || pid == os.Getpid() || !owner.Dead(pid, token) {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() || !owner.OwnedByMe(fi) {
			continue
		}
		if err := os.Remove(p); err != nil {
			errs = append(errs, fmt.Errorf("removing a dead run's trace spool: %w", err))
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}

// spoolOwner reads the pid and token of a spool's name.
func spoolOwner(name string) (pid int, token string, ok bool) {
	rest, ok := strings.CutPrefix(name, SpoolPattern)
	digits, rest, ok2 := strings.Cut(rest, "-")
	token, _, ok3 := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, token, ok && ok2 && ok3 && err == nil && pid > 0 && token != "x"
}
