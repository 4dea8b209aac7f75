//go:build linux

package netcut_test

import (
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/netcut"
	"github.com/google/nftables"
	"golang.org/x/sys/unix"
)

// The tests' addresses: a /24 of loopback no other part of electbench
// listens on, so that a rule here cannot touch another test's traffic.
var (
	addrA = netip.MustParseAddr("127.0.3.1")
	addrB = netip.MustParseAddr("127.0.3.2")
)

// dialEnv makes the test binary a dialer for TestPin: it connects to the
// address in the variable, from a process of another uid, and exits.
const dialEnv = "NETCUT_TEST_DIAL"

func TestMain(m *testing.M) {
	if addr := os.Getenv(dialEnv); addr != "" {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			os.Exit(1)
		}
		_, _ = c.Write([]byte("x"))
		_ = c.Close()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func open(t *testing.T) *netcut.Table {
	t.Helper()
	tb, err := netcut.Open(os.Getpid(), "t1")
	if err != nil {
		t.Fatalf("netcut needs root and nf_tables (CI runs as root): %v", err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Error(err)
		}
		assertNoTable(t, tb.Name())
	})
	return tb
}

func assertNoTable(t *testing.T, name string) {
	t.Helper()
	conn, err := nftables.New()
	if err != nil {
		t.Fatal(err)
	}
	tables, err := conn.ListTables()
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == name {
			t.Errorf("table %s remains", name)
		}
	}
}

// A TCP connection between two loopback addresses stalls under a cut both
// ways and delivers what was written once healed (TCP retransmits it).
func TestCutStallsAndHealResumes(t *testing.T) {
	tb := open(t)
	ln, err := net.Listen("tcp", addrB.String()+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: addrA.AsSlice()}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := <-accepted
	defer srv.Close()

	if err := tb.Cut(addrA, addrB); err != nil {
		t.Fatal(err)
	}
	if err := tb.Cut(addrB, addrA); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	_ = srv.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	if n, err := srv.Read(buf); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read under the cut: %d bytes, %v; want nothing before the deadline", n, err)
	}
	if err := tb.Heal(addrA, addrB); err != nil {
		t.Fatal(err)
	}
	if err := tb.Heal(addrB, addrA); err != nil {
		t.Fatal(err)
	}
	_ = srv.SetReadDeadline(time.Now().Add(10 * time.Second))
	if n, err := srv.Read(buf); err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("read after heal: %q, %v; want hello", buf[:n], err)
	}
}

// Loss drops about its share of UDP datagrams, one way only.
func TestLossDropsAShare(t *testing.T) {
	tb := open(t)
	const sent, percent = 4000, 30
	if err := tb.Loss(addrA, addrB, percent); err != nil {
		t.Fatal(err)
	}
	if got := udpReceived(t, addrA, addrB, sent); got < sent*(100-percent-5)/100 || got > sent*(100-percent+5)/100 {
		t.Errorf("%v -> %v at %d%% loss: %d of %d datagrams arrived; want %d±5%%", addrA, addrB, percent, got, sent, sent*(100-percent)/100)
	}
	if got := udpReceived(t, addrB, addrA, sent); got != sent {
		t.Errorf("%v -> %v (no rule): %d of %d arrived", addrB, addrA, got, sent)
	}
	if err := tb.HealAll(); err != nil {
		t.Fatal(err)
	}
	if got := udpReceived(t, addrA, addrB, sent); got != sent {
		t.Errorf("%v -> %v healed: %d of %d arrived", addrA, addrB, got, sent)
	}
}

// udpReceived sends n datagrams from → to, one at a time, and counts
// those that arrived. Loopback delivers a datagram within its send, so
// after each send the receiver reads what has arrived without waiting: a
// read deadline of 1 ms, which Go checks before it reads, lost datagrams
// that had arrived whenever the test was descheduled past it (3,999 of
// 4,000 at load 28). Each datagram carries its index, counted once, and a
// last read, after the host had time to deliver any it held back, finds
// the late ones.
func udpReceived(t *testing.T, from, to netip.Addr, n int) int {
	t.Helper()
	rx, err := net.ListenUDP("udp", &net.UDPAddr{IP: to.AsSlice()})
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	tx, err := net.DialUDP("udp", &net.UDPAddr{IP: from.AsSlice()}, rx.LocalAddr().(*net.UDPAddr))
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Close()
	raw, err := rx.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	arrived := make([]bool, n)
	buf := make([]byte, 16)
	drain := func() {
		for {
			k, rerr := 0, error(nil)
			if err := raw.Read(func(fd uintptr) bool {
				k, _, rerr = unix.Recvfrom(int(fd), buf, unix.MSG_DONTWAIT)
				return true // never wait
			}); err != nil || rerr != nil { // EAGAIN: nothing more has arrived
				return
			}
			if i := binary.BigEndian.Uint32(buf[:k]); int(i) < n {
				arrived[i] = true
			}
		}
	}
	for i := range n {
		if _, err := tx.Write(binary.BigEndian.AppendUint32(nil, uint32(i))); err != nil {
			t.Fatal(err)
		}
		drain()
	}
	time.Sleep(100 * time.Millisecond)
	drain()
	got := 0
	for _, a := range arrived {
		if a {
			got++
		}
	}
	return got
}

// A process pinned by its uid reaches a loopback address from its own
// address, not 127.0.0.1, so rules between addresses see its packets.
func TestPin(t *testing.T) {
	tb := open(t)
	const uid = 64999
	if err := tb.Pin(uid, addrA); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", addrB.String()+":0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	// The dialer is this test binary, copied where another uid may run it
	// (go test builds it in a directory only its user may enter).
	dir, err := os.MkdirTemp("", "netcut-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "dialer")
	exe, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, exe, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), dialEnv+"="+ln.Addr().String())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(10 * time.Second))
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("accepting the pinned dialer: %v (dialer: %v)", err, cmd.Wait())
	}
	defer c.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("dialer: %v", err)
	}
	if got := c.RemoteAddr().(*net.TCPAddr).IP.String(); got != addrA.String() {
		t.Errorf("pinned uid %d dialed from %s; want %s", uid, got, addrA)
	}
}

// RemoveDead deletes a table whose run is gone and keeps one whose run is
// alive.
func TestRemoveDead(t *testing.T) {
	const deadPID = 1 << 30 // no process has it: pid_max is at most 2^22
	dead, err := netcut.Open(deadPID, "t1")
	if err != nil {
		t.Fatalf("netcut needs root and nf_tables: %v", err)
	}
	if err := dead.Cut(addrA, addrB); err != nil {
		t.Fatal(err)
	}
	mine := open(t)
	removed, err := netcut.RemoveDead(func(pid int, token string) bool { return pid == deadPID && token == "t1" })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, dead.Name()) || slices.Contains(removed, mine.Name()) {
		t.Errorf("removed %v; want %s and not %s", removed, dead.Name(), mine.Name())
	}
	assertNoTable(t, dead.Name())
	if err := mine.Cut(addrA, addrB); err != nil {
		t.Errorf("the live run's table was touched: %v", err)
	}
}
