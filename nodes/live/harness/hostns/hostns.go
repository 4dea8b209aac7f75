//go:build linux

package hostns

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/vishvananda/netlink"
	vnetns "github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// ErrNotRoot is New's error when this process may not make namespaces.
var ErrNotRoot = errors.New("hosts as network namespaces (--netns) need root")

// namedDir is where named namespaces are bind-mounted (as ip-netns does,
// and vishvananda/netns).
const namedDir = "/run/netns"

// stateDir holds a file per Set, named as its bridge, that names its
// owner ("PID TOKEN"): interface names (15 bytes at most) cannot hold a
// token, and /run/netns is shared by every PID namespace.
const stateDir = "/run/electbench/hostns"

// Name is what the Set of the owner that pid and token (owner.Token) name
// is called: its bridge "eb" and eight hex digits of a hash of both, its
// hosts and their ports that and "-<i>". A pid alone would name two
// owners in two PID namespaces sharing this network namespace the same.
func Name(pid int, token string) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%d %s", pid, token)
	return fmt.Sprintf("eb%08x", h.Sum32())
}

// Host is one namespace of a Set.
type Host struct {
	Name string     // its namespace's name, under /run/netns
	Addr netip.Addr // its address on the bridge
	// Clock is how far its processes' CLOCK_MONOTONIC reads ahead of the
	// owner's (SetClock); 0 shares the owner's.
	Clock  time.Duration
	ns     vnetns.NsHandle
	spawns chan spawn // to its spawner, with a shifted clock (clock.go)
}

// Set is K hosts joined by a bridge. Its methods may be called from
// several goroutines; Close only once they are done.
type Set struct {
	bridge string
	root   netip.Addr // the bridge's address in the owner's namespace
	hosts  []Host
}

// subnet is the /24 of owner's Set in 198.18.0.0/15, the range RFC 2544
// sets aside for benchmarks (no network a host is on uses it): the first
// from the owner's pid mod 512 on that no interface of this namespace has
// an address in, so that two runs at once use two.
func subnet(owner int) (netip.Addr, error) {
	addrs, err := netlink.AddrList(nil, netlink.FAMILY_V4)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("listing addresses: %w", err)
	}
	used := map[netip.Prefix]bool{}
	for _, a := range addrs {
		if ip, ok := netip.AddrFromSlice(a.IP); ok {
			used[netip.PrefixFrom(ip.Unmap(), 24).Masked()] = true
		}
	}
	for i := range 512 {
		s := (owner + i) % 512
		net24 := netip.AddrFrom4([4]byte{198, 18 + byte(s/256), byte(s % 256), 0})
		if !used[netip.PrefixFrom(net24, 24)] {
			return net24, nil
		}
	}
	return netip.Addr{}, errors.New("every /24 of 198.18.0.0/15 is in use")
}

// hostAddr is the i-th address of a subnet (.1 the bridge's, hosts from .2).
func hostAddr(net24 netip.Addr, i int) netip.Addr {
	b := net24.As4()
	b[3] = byte(i)
	return netip.AddrFrom4(b)
}

// New builds k hosts owned by the process that owner and token name
// (os.Getpid() and owner.Token() but in tests of clean-up), recording
// them in its state file before it makes anything. On any failure it
// removes what it made.
func New(owner int, token string, k int) (*Set, error) {
	if k < 1 || k > MaxHosts {
		return nil, fmt.Errorf("%d hosts: want 1 to %d", k, MaxHosts)
	}
	if os.Geteuid() != 0 {
		return nil, ErrNotRoot
	}
	name := Name(owner, token)
	// An earlier Set of the same owner (only tests make two) may hold the
	// bridge, and with it the subnet this one would take.
	if old, err := netlink.LinkByName(name); err == nil {
		netlink.LinkDel(old)
	}
	net24, err := subnet(owner)
	if err != nil {
		return nil, err
	}
	if err := writeState(name, owner, token); err != nil {
		return nil, err
	}
	s := &Set{bridge: name, root: hostAddr(net24, 1)}
	if err := s.makeBridge(); err != nil {
		s.Close()
		return nil, err
	}
	for i := range k {
		h, err := s.makeHost(i, hostAddr(net24, i+2))
		if h.ns.IsOpen() {
			s.hosts = append(s.hosts, h) // Close removes it
		}
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// makeBridge makes the bridge in the owner's namespace, with the root
// address.
func (s *Set) makeBridge() error {
	br := &netlink.Bridge{LinkAttrs: netlink.LinkAttrs{Name: s.bridge}}
	if err := netlink.LinkAdd(br); err != nil {
		return fmt.Errorf("making bridge %s: %w", s.bridge, err)
	}
	addr := &netlink.Addr{IPNet: &net.IPNet{IP: s.root.AsSlice(), Mask: net.CIDRMask(24, 32)}}
	if err := netlink.AddrAdd(br, addr); err != nil {
		return fmt.Errorf("addressing bridge %s as %v: %w", s.bridge, s.root, err)
	}
	if err := netlink.LinkSetUp(br); err != nil {
		return fmt.Errorf("bringing bridge %s up: %w", s.bridge, err)
	}
	return nil
}

// makeHost makes host i's namespace and its veth pair: one end a port of
// the bridge, the other eth0 in the namespace, at addr.
func (s *Set) makeHost(i int, addr netip.Addr) (Host, error) {
	h := Host{Name: s.bridge + "-" + strconv.Itoa(i), Addr: addr, ns: vnetns.None()}
	ns, err := newNamed(h.Name)
	if err != nil {
		return h, fmt.Errorf("making namespace %s: %w", h.Name, err)
	}
	h.ns = ns
	br, err := netlink.LinkByName(s.bridge)
	if err != nil {
		return h, fmt.Errorf("finding bridge %s: %w", s.bridge, err)
	}
	// The peer's name is temporary: eth0 would clash in this namespace.
	peer := "ebp" + strings.TrimPrefix(s.bridge, "eb") + "-" + strconv.Itoa(i)
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: h.Name, MasterIndex: br.Attrs().Index}, PeerName: peer, PeerNamespace: netlink.NsFd(int(ns))}
	if err := netlink.LinkAdd(veth); err != nil {
		return h, fmt.Errorf("making veth %s for %s: %w", h.Name, h.Name, err)
	}
	if err := netlink.LinkSetUp(veth); err != nil {
		return h, fmt.Errorf("bringing %s up: %w", h.Name, err)
	}
	in, err := netlink.NewHandleAt(ns)
	if err != nil {
		return h, fmt.Errorf("netlink in %s: %w", h.Name, err)
	}
	defer in.Close()
	return h, configure(in, peer, addr)
}

// configure brings up a namespace's loopback and its end of the veth,
// renamed eth0, at addr.
func configure(in *netlink.Handle, peer string, addr netip.Addr) error {
	lo, err := in.LinkByName("lo")
	if err != nil {
		return fmt.Errorf("finding lo: %w", err)
	}
	if err := in.LinkSetUp(lo); err != nil {
		return fmt.Errorf("bringing lo up: %w", err)
	}
	eth, err := in.LinkByName(peer)
	if err != nil {
		return fmt.Errorf("finding %s: %w", peer, err)
	}
	if err := in.LinkSetName(eth, "eth0"); err != nil {
		return fmt.Errorf("renaming %s eth0: %w", peer, err)
	}
	if err := in.AddrAdd(eth, &netlink.Addr{IPNet: &net.IPNet{IP: addr.AsSlice(), Mask: net.CIDRMask(24, 32)}}); err != nil {
		return fmt.Errorf("addressing eth0 as %v: %w", addr, err)
	}
	if err := in.LinkSetUp(eth); err != nil {
		return fmt.Errorf("bringing eth0 up: %w", err)
	}
	return nil
}

// newNamed makes a namespace bind-mounted at namedDir/name, on a thread
// of its own that goes back to this process's namespace before it is
// released (vnetns.NewNamed leaves the calling thread in the new one).
func newNamed(name string) (vnetns.NsHandle, error) {
	var ns vnetns.NsHandle
	err := inThread(func(orig vnetns.NsHandle) error {
		var err error
		// A stale mount of a dead run of the same pid is in the way.
		vnetns.DeleteNamed(name)
		if ns, err = vnetns.NewNamed(name); err != nil {
			return err
		}
		return vnetns.Set(orig)
	})
	return ns, err
}

// inThread runs f on a locked thread, handing it this thread's namespace
// to return to. The thread ends with the goroutine if f leaves it in
// another namespace (runtime.LockOSThread without unlock), so no other
// goroutine ever runs there.
func inThread(f func(orig vnetns.NsHandle) error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := vnetns.Get()
		if err != nil {
			done <- fmt.Errorf("reading this thread's namespace: %w", err)
			return
		}
		defer orig.Close()
		err = f(orig)
		if cur, cerr := vnetns.Get(); cerr == nil {
			if cur.Equal(orig) {
				runtime.UnlockOSThread()
			}
			cur.Close()
		}
		done <- err
	}()
	return <-done
}

// Hosts are the set's hosts, by index.
func (s *Set) Hosts() []Host { return s.hosts }

// NetNS is host i's namespace as a descriptor, for calls that take one
// (nftables.WithNetNSFd); it stays the Set's, open until Close.
func (s *Set) NetNS(i int) int { return int(s.hosts[i].ns) }

// Root is the bridge's address in the owner's namespace: every host
// reaches a server that listens there.
func (s *Set) Root() netip.Addr { return s.root }

// Do runs f inside host i's namespace, on a thread no other goroutine
// uses meanwhile.
func (s *Set) Do(i int, f func() error) error {
	h := s.hosts[i]
	return inThread(func(orig vnetns.NsHandle) error {
		if err := vnetns.Set(h.ns); err != nil {
			return fmt.Errorf("entering %s: %w", h.Name, err)
		}
		err := f()
		if serr := vnetns.Set(orig); serr != nil {
			return errors.Join(err, fmt.Errorf("leaving %s: %w", h.Name, serr))
		}
		return err
	})
}

// Listen opens a TCP socket listening on host i's address, port chosen by
// the kernel: it stays in host i's namespace wherever it is used.
func (s *Set) Listen(i int) (*net.TCPListener, error) {
	var ln *net.TCPListener
	err := s.Do(i, func() error {
		var err error
		ln, err = net.ListenTCP("tcp", &net.TCPAddr{IP: s.hosts[i].Addr.AsSlice()})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", s.hosts[i].Name, err)
	}
	return ln, nil
}

// Start starts cmd inside host i's namespace (the child inherits its
// forking thread's), with host i's clock (SetClock).
func (s *Set) Start(i int, cmd *exec.Cmd) error {
	if h := s.hosts[i]; h.spawns != nil {
		return startShifted(h, cmd)
	}
	return s.Do(i, cmd.Start)
}

// Close removes the namespaces, their veth pairs and the bridge. The
// pairs go first, by their ends on the bridge: a namespace outlives its
// name while a socket or process in it is open, and its pair with it.
func (s *Set) Close() error {
	s.stopSpawners()
	var errs []error
	for _, h := range s.hosts {
		if port, err := netlink.LinkByName(h.Name); err == nil {
			if err := netlink.LinkDel(port); err != nil && !errors.Is(err, unix.ENODEV) {
				errs = append(errs, fmt.Errorf("removing veth %s: %w", h.Name, err))
			}
		}
		h.ns.Close()
		if err := vnetns.DeleteNamed(h.Name); err != nil {
			errs = append(errs, fmt.Errorf("removing namespace %s: %w", h.Name, err))
		}
	}
	s.hosts = nil
	if br, err := netlink.LinkByName(s.bridge); err == nil {
		if err := netlink.LinkDel(br); err != nil {
			errs = append(errs, fmt.Errorf("removing bridge %s: %w", s.bridge, err))
		}
	}
	if len(errs) == 0 {
		if err := os.Remove(filepath.Join(stateDir, s.bridge)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing the state of %s: %w", s.bridge, err))
		}
	}
	return errors.Join(errs...)
}

// writeState records a Set's owner in its state file.
func writeState(name string, pid int, token string) error {
	if err := os.MkdirAll(stateDir, 0o755); err != nil {
		return fmt.Errorf("making %s: %w", stateDir, err)
	}
	path := filepath.Join(stateDir, name)
	if err := os.WriteFile(path, fmt.Appendf(nil, "%d %s\n", pid, token), 0o644); err != nil {
		return fmt.Errorf("recording the owner of %s: %w", name, err)
	}
	return nil
}

// readState is the owner a state file names.
func readState(path string) (pid int, token string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 200 {
		return 0, "", false
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, "", false
	}
	pid, err = strconv.Atoi(f[0])
	return pid, f[1], err == nil && pid > 0
}

// RemoveDead removes the namespaces and links of Sets whose owner, as its
// state file names it, is provably gone (dead: owner.Dead, never this
// process), naming what it removed, and then the state file. What no
// state file names, or names an owner that may live (in another PID
// namespace sharing this network namespace too), is kept. Without root
// there is nothing a run could have made.
//
// Every run cleans up as it starts, so two may find the same dead Set:
// one holds stateDir locked (flock) while it lists and removes, and the
// other then lists what is left. Without the lock the later one failed on
// what the first had just removed (a state file gone, a namespace already
// unmounted: EINVAL), a clean-up that did its work reported as an error.
func RemoveDead(dead func(pid int, token string) bool) ([]string, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	lock, err := os.Open(stateDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // no run ever made a Set here
	}
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", stateDir, err)
	}
	defer lock.Close() // and with it the lock
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX); err != nil {
		return nil, fmt.Errorf("locking %s: %w", stateDir, err)
	}
	states, err := lock.ReadDir(-1)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", stateDir, err)
	}
	var removed []string
	var errs []error
	for _, st := range states {
		name := st.Name()
		path := filepath.Join(stateDir, name)
		pid, token, ok := readState(path)
		if !ok || !strings.HasPrefix(name, "eb") || !dead(pid, token) {
			continue
		}
		r, err := removeSet(name)
		removed = append(removed, r...)
		if err == nil {
			err = os.Remove(path)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) { // a state file gone: a clean-up of an older build's, which took no lock
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

// removeSet removes the links and namespaces of the Set called name. The
// links go first, as at Close; a veth that vanishes meanwhile (its
// namespace ending) is not an error.
func removeSet(name string) ([]string, error) {
	var removed []string
	var errs []error
	links, err := netlink.LinkList()
	if err != nil {
		return nil, fmt.Errorf("listing links: %w", err)
	}
	for _, l := range links {
		n := l.Attrs().Name
		if (n == name || strings.HasPrefix(n, name+"-")) && (l.Type() == "bridge" || l.Type() == "veth") {
			if err := netlink.LinkDel(l); err != nil && !errors.Is(err, unix.ENODEV) {
				errs = append(errs, fmt.Errorf("removing link %s: %w", n, err))
				continue
			}
			removed = append(removed, l.Type()+" "+n)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(namedDir, name+"-*"))
	for _, path := range paths {
		n := filepath.Base(path)
		if err := vnetns.DeleteNamed(n); err != nil {
			errs = append(errs, fmt.Errorf("removing namespace %s: %w", n, err))
			continue
		}
		removed = append(removed, "namespace "+n)
	}
	return removed, errors.Join(errs...)
}
