//go:build linux

package hostns

import (
	"cmp"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/electbench/electbench/internal/owner"
	"github.com/vishvananda/netlink"
)

// newSet builds k hosts owned by owner and token, failing the test
// without root (CI runs as root, as for netcut's tests).
func newSet(t *testing.T, owner int, token string, k int) *Set {
	t.Helper()
	s, err := New(owner, token, k)
	if err != nil {
		t.Fatalf("hostns needs root (CI runs as root): %v", err)
	}
	return s
}

// leftovers names what the owner's Sets hold: namespaces, links and the
// state file.
func leftovers(t *testing.T, owner int, token string) []string {
	t.Helper()
	var out []string
	prefix := Name(owner, token)
	if _, err := os.Stat(filepath.Join(stateDir, prefix)); err == nil {
		out = append(out, "state")
	}
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
	owner, token := os.Getpid(), ownerToken()
	s := newSet(t, owner, token, 2)
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
	if left := leftovers(t, owner, token); len(left) > 0 {
		t.Errorf("after Close: %v", left)
	}
}

// ownerToken is this process's token, "x" where it cannot be known (as
// the harness names its owner).
func ownerToken() string { return cmp.Or(owner.Token(), "x") }

// TestRemoveDeadTakesOnlyProvablyDeadOwners: a Set whose owner is gone
// (never closed, as after SIGKILL) is removed by RemoveDead; one whose
// owner lives is not, nor one of the same pid whose owner ran in another
// PID namespace sharing this network namespace (its pid proves nothing
// here: a pid alone named the two Sets alike, and took the other's for
// dead).
func TestRemoveDeadTakesOnlyProvablyDeadOwners(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	me := ownerToken()
	_, rest, _ := strings.Cut(me, "b")
	boot, _, _ := strings.Cut(rest, "s")
	ns, _, _ := strings.Cut(me, "b")
	pid := gone.Process.Pid
	deadTok, elsewhereTok := ns+"b"+boot+"s1", "n1b"+boot+"s1"
	d := newSet(t, pid, deadTok, 2)
	defer d.Close()
	e := newSet(t, pid, elsewhereTok, 1)
	defer e.Close()
	l := newSet(t, os.Getpid(), me, 1)
	defer l.Close()
	removed, err := RemoveDead(func(pid int, token string) bool {
		return pid != os.Getpid() && owner.Dead(pid, token)
	})
	if err != nil {
		t.Fatal(err)
	}
	if left := leftovers(t, pid, deadTok); len(left) > 0 {
		t.Errorf("the dead owner's hosts survive RemoveDead: %v", left)
	}
	// Another clean-up beside this test (a harness test's) may have taken
	// some first; whatever this one took was the dead owner's.
	for _, r := range removed {
		if !strings.HasSuffix(r, " "+d.bridge) && !strings.Contains(r, " "+d.bridge+"-") {
			t.Errorf("RemoveDead removed %s, not the dead owner's %s", r, d.bridge)
		}
	}
	for _, kept := range []struct{ what, token string }{{"the living owner's", me}, {"another PID namespace's", elsewhereTok}} {
		owner := pid
		if kept.token == me {
			owner = os.Getpid()
		}
		if left := leftovers(t, owner, kept.token); len(left) != 4 {
			t.Errorf("%s set is now %v, want its state, namespace, bridge and port", kept.what, left)
		}
	}
}

// Two runs at once whose pids agree mod 512 take two subnets: the second
// skips the /24 the first's bridge holds.
func TestSubnetsDoNotCollide(t *testing.T) {
	s := newSet(t, os.Getpid(), ownerToken(), 1)
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
