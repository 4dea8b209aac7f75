package live

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// stable is the machine's stable storage (nodes.StableStore, through env):
// in StableFile under Options.StateDir, where it survives a crash and
// restart of the process, or in memory without one.
//
// With a dir, save replaces the file whole by a rename, so that a SIGKILL
// at any instant leaves the old state or the new, never a mixture, and
// append writes at its end (a SIGKILL during the write may keep a prefix
// of what was appended: the torn tail the contract allows). Both write
// before they return, and so before the machine's next send. (No fsync:
// the faults are process crashes, which the page cache survives, not
// power losses.) A failure to keep the state is err, which stops the node,
// since a process that forgot its vote could elect a second leader in a
// term; once set it stays.
//
// A machine's store is used on the node's goroutine only; a library's
// (nodes.Host.Stable) from its own goroutines as well, hence mu, which
// every method holds.
type stable struct {
	mu  sync.Mutex
	dir string // Options.StateDir; "" keeps the state in mem
	mem []byte
	err error
}

// failed is the error that stops the node, if any.
func (s *stable) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *stable) path() string { return filepath.Join(s.dir, StableFile) }

func (s *stable) load() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		return s.mem
	}
	b, err := os.ReadFile(s.path())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.err = fmt.Errorf("live: reading the stable state: %w", err)
		}
		return nil
	}
	return b
}

func (s *stable) save(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		s.mem = append(s.mem[:0], b...)
		return
	}
	if s.err == nil {
		if err := writeReplace(s.path(), b); err != nil {
			s.err = fmt.Errorf("live: keeping the stable state: %w", err)
		}
	}
}

func (s *stable) append(b []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		s.mem = append(s.mem, b...)
		return
	}
	if s.err == nil {
		if err := writeAppend(s.path(), b); err != nil {
			s.err = fmt.Errorf("live: keeping the stable state: %w", err)
		}
	}
}

// reset forgets the last trial's state: nothing carries over from trial
// to trial of a kept cluster.
func (s *stable) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mem = nil
	if s.dir != "" {
		if err := os.Remove(s.path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.err = fmt.Errorf("live: removing the last trial's stable state: %w", err)
		}
	}
}

// writeAppend writes b at the end of path, creating it if need be.
func writeAppend(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeReplace replaces path's contents with b through a temporary file
// and a rename.
func writeReplace(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".stable-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
