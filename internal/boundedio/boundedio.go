// Package boundedio reads files electbench is given without trusting their
// size: a wrong path (/dev/zero, a multi-gigabyte file, a pipe that never
// ends) fails at once with an error naming the file and the limit, rather
// than exhausting memory. Every reader of a user's file goes through it.
package boundedio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is wrapped by every error about input over its limit.
var ErrTooLarge = errors.New("too large")

// ReadFile reads the file at path whole if it holds at most limit bytes.
// The size of a regular file is checked before anything is read or
// allocated; a device or pipe is read at most limit+1 bytes. what names the
// file's role in the error ("scenario file").
func ReadFile(path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, tooLarge(path, what, limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(path, what, limit)
	}
	return data, nil
}

func tooLarge(path, what string, limit int64) error {
	return fmt.Errorf("%s: %w: a %s is at most %s", path, ErrTooLarge, what, Size(limit))
}

// Size prints a byte count as people write limits: 1 MiB, 16 KiB, 100 B.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}

// Lines returns a reader of r that fails, wrapping ErrTooLarge, as soon as
// a line (bytes up to '\n') exceeds max bytes: a line-oriented decoder
// reading through it (encoding/csv, which has no limit of its own) never
// holds more than one line of max bytes, whatever it is given.
func Lines(r io.Reader, max int) io.Reader {
	return &lines{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

type lines struct {
	r   *bufio.Reader
	max int
	cur int // bytes of the current line so far
	err error
}

func (l *lines) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			l.cur = 0
			continue
		}
		if l.cur++; l.cur > l.max {
			l.err = fmt.Errorf("%w: a line longer than %s", ErrTooLarge, Size(int64(l.max)))
			return 0, l.err
		}
	}
	return n, err
}
