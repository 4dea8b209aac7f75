package boundedio

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small"), filepath.Join(dir, "big")
	os.WriteFile(small, []byte("12345"), 0o600)
	os.WriteFile(big, []byte("123456"), 0o600)
	if b, err := ReadFile(small, 5, "test file"); err != nil || string(b) != "12345" {
		t.Fatalf("at the limit: %q, %v", b, err)
	}
	_, err := ReadFile(big, 5, "test file")
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), big) || !strings.Contains(err.Error(), "at most 5 B") {
		t.Fatalf("over the limit: %v", err)
	}
	// A device never ends: it is read up to the limit, no further.
	if _, err := os.Stat("/dev/zero"); err == nil {
		_, err := ReadFile("/dev/zero", 1<<20, "scenario file")
		if !errors.Is(err, ErrTooLarge) || err.Error() != "/dev/zero: too large: a scenario file is at most 1 MiB" {
			t.Fatalf("/dev/zero: %v", err)
		}
	}
}

func TestLines(t *testing.T) {
	ok := strings.Repeat("x", 10) + "\n" + strings.Repeat("y", 10) + "\n"
	if b, err := io.ReadAll(Lines(strings.NewReader(ok), 10)); err != nil || string(b) != ok {
		t.Fatalf("lines at the limit: %q, %v", b, err)
	}
	_, err := io.ReadAll(Lines(strings.NewReader("x\n"+strings.Repeat("y", 11)), 10))
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a line over the limit: %v", err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		f, _ := os.Open("/dev/zero")
		defer f.Close()
		if _, err := io.ReadAll(Lines(f, 1<<20)); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("/dev/zero: %v", err)
		}
	}
}
