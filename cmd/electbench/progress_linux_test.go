package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// openPTY opens a pseudo-terminal of 160 columns: the controlling side,
// read by the test, and the terminal a program writes to.
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal (Linux always has /dev/ptmx): %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	fd := int(ptmx.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: 40, Col: 160}); err != nil {
		t.Fatal(err)
	}
	return ptmx, tty
}

// A live run on a terminal shows its trial's set-up on the bar, stage by
// stage, then running; all of it on stderr: stdout holds the table and the
// last line alone, as off a terminal.
func TestLiveSetupOnTerminal(t *testing.T) {
	bin := buildElectbench(t)
	ptmx, tty := openPTY(t)
	cmd := exec.Command(bin, "run", "--runtime", "live", "--algo", "raft", "--nodes", "16", "--trials", "1", "--out", t.TempDir())
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the program holds it now: the reader sees the end when it exits
	var screen bytes.Buffer
	read := make(chan struct{})
	go func() {
		io.Copy(&screen, ptmx) // ends with EIO once the program's side is closed
		close(read)
	}()
	err := cmd.Wait()
	<-read
	if err != nil {
		t.Fatalf("%v; terminal:\n%s", err, screen.String())
	}
	for _, want := range []string{
		`trials  0/1 .* raft n=16 trial 0: (starting processes [0-9]+/16|proxies|linking [0-9]+/240)`,
		`trials  0/1 .* raft n=16 trial 0: running`,
		`trials  1/1 .* raft n=16 `,
	} {
		if !regexp.MustCompile(want).Match(screen.Bytes()) {
			t.Errorf("the terminal does not show %s:\n%q", want, screen.String())
		}
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "algorithm  variant") || !strings.Contains(out, "1 trials (1 run now)") ||
		strings.Contains(out, "trial 0") || strings.Contains(out, "\x1b") {
		t.Errorf("stdout:\n%q", out)
	}
}
