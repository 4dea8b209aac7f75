//go:build linux

package hostns

import (
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/vishvananda/netlink"
)

// newSet builds k hosts owned by owner, failing the test without root
// (CI runs as root, as for netcut's tests).
func newSet(t *testing.T, owner, k int) *Set {
	t.Helper()
	s, err := New(owner, k)
	if err != nil {
		t.Fatalf("hostns needs root (CI runs as root): %v", err)
	}
	return s
}

// leftovers names what owner's Sets hold: namespaces and links.
func leftovers(t *testing.T, owner int) []string {
	t.Helper()
	var out []string
	prefix := "eb" + strconv.Itoa(owner)
	names, _ := filepath.Glob(filepath.Join(namedDir, prefix+"*"))
	for _, n := range names {
		out = append(out, filepath.Base(n))
	}
	links, err := netlink.LinkList()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		if name := l.Attrs().Name; name == prefix || strings.HasPrefix(name, prefix+"-") {
			out = append(out, name)
		}
	}
	return out
}

// TestHostsTalkAcrossTheBridge: a socket opened in one host accepts a
// connection dialed from a process started in another, whose address is
// the dialer's host's own, and from the owner's namespace; nothing is left
// after Close.
func TestHostsTalkAcrossTheBridge(t *testing.T) {
	owner := os.Getpid()
	s := newSet(t, owner, 2)
	ln, err := s.Listen(1)
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	defer ln.Close()
	if got := ln.Addr().(*net.TCPAddr).IP.String(); got != s.Hosts()[1].Addr.String() {
		t.Errorf("host 1 listens on %s, not its address %v", got, s.Hosts()[1].Addr)
	}
	peer := make(chan string, 2)
	go func() {
		for range 2 {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			host, _, _ := net.SplitHostPort(c.RemoteAddr().String())
			peer <- host
			io.WriteString(c, "hi\n")
			c.Close()
		}
	}()
	// bash's /dev/tcp dials from host 0 with nothing to install.
	cmd := exec.Command("bash", "-c", "exec 3<>/dev/tcp/"+s.Hosts()[1].Addr.String()+"/"+strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)+" && head -1 <&3")
	out, _ := cmd.StdoutPipe()
	if err := s.Start(0, cmd); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil || string(got) != "hi\n" {
		t.Fatalf("a process in host 0 dialing host 1: %q, %v", got, err)
	}
	if from := <-peer; from != s.Hosts()[0].Addr.String() {
		t.Errorf("host 1 saw the dial from %s, not host 0's %v", from, s.Hosts()[0].Addr)
	}
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("the owner's namespace dialing host 1: %v", err)
	}
	c.Close()
	if from := <-peer; from != s.Root().String() {
		t.Errorf("host 1 saw the owner's dial from %s, not the bridge's %v", from, s.Root())
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if left := leftovers(t, owner); len(left) > 0 {
		t.Errorf("after Close: %v", left)
	}
}

// TestRemoveDeadTakesAKilledOwnersHosts: a Set whose owner is gone (never
// closed, as after SIGKILL) is removed by RemoveDead; one whose owner
// lives is not.
func TestRemoveDeadTakesAKilledOwnersHosts(t *testing.T) {
	// The dead owner's pid is above any pid_max: never running. The
	// living one is this process, so that the clean-up of a harness test
	// running beside this one takes only the dead owner's.
	const dead = 4000001
	living := os.Getpid()
	d := newSet(t, dead, 2)
	l := newSet(t, living, 1)
	defer l.Close()
	defer d.Close()
	// Any other process's hosts (a harness test beside this one) are
	// left to it.
	removed, err := RemoveDead(func(pid int) bool {
		err := syscall.Kill(pid, 0)
		return pid != dead && (err == nil || errors.Is(err, syscall.EPERM))
	})
	if err != nil {
		t.Fatal(err)
	}
	if left := leftovers(t, dead); len(left) > 0 {
		t.Errorf("the dead owner's hosts survive RemoveDead: %v", left)
	}
	// Another clean-up beside this test (a harness test's) may have taken
	// some first; whatever this one took was the dead owner's.
	for _, r := range removed {
		if !strings.HasSuffix(r, " eb4000001") && !strings.Contains(r, " eb4000001-") {
			t.Errorf("RemoveDead removed %s, not the dead owner's", r)
		}
	}
	if left := leftovers(t, living); len(left) != 3 {
		t.Errorf("the living owner's set is now %v, want its namespace, bridge and port", left)
	}
}

// Two runs at once whose pids agree mod 512 take two subnets: the second
// skips the /24 the first's bridge holds.
func TestSubnetsDoNotCollide(t *testing.T) {
	s := newSet(t, os.Getpid(), 1)
	defer s.Close()
	taken := netip.PrefixFrom(s.Root(), 24).Masked().Addr()
	next, err := subnet(os.Getpid() + 512)
	if err != nil {
		t.Fatal(err)
	}
	if next == taken {
		t.Errorf("a second run would take %v, the first's subnet too", next)
	}
}
