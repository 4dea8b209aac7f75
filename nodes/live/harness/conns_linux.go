package harness

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// drain accepts and closes the connections waiting on the sockets: made
// by proxies for dialers of the trial, after the process that would have
// taken them died. It never blocks: it takes what the kernel queued.
func drain(lns []*net.TCPListener) {
	for _, ln := range lns {
		raw, err := ln.SyscallConn()
		if err != nil {
			continue
		}
		raw.Control(func(fd uintptr) {
			// Handing the socket to a process (os/exec, File.Fd) made it
			// blocking, for this process too: the node that took it made
			// it non-blocking again, unless it failed before.
			if syscall.SetNonblock(int(fd), true) != nil {
				return
			}
			for {
				c, _, err := syscall.Accept4(int(fd), syscall.SOCK_CLOEXEC)
				if err != nil {
					return // EAGAIN: none left
				}
				syscall.Close(c)
			}
		})
	}
}

// openConns counts the host's TCP connections with an end on one of ports
// that some process still holds or the kernel still queues: established,
// half-open (SYN received) or closed by the peer only (close wait). Ends
// that only the kernel keeps (time wait, fin wait) carry nothing to a
// process and are not counted.
//
// The tables are the calling thread's (/proc/thread-self/net), not the
// process's (/proc/net, the main thread's): a goroutine that ends locked
// to its thread in a host's namespace (hostns's spawners do) ends the
// thread, but the main thread is kept, wedged in that namespace, and
// /proc/net then lists the host's sockets, none of the cluster's: a
// repeated run of the package's tests saw its own listening port vanish
// from /proc/net/tcp. An unlocked goroutine's thread is always in the
// harness's namespace.
func openConns(ends map[string]bool) (int, error) {
	n := 0
	for _, path := range []string{"/proc/thread-self/net/tcp", "/proc/thread-self/net/tcp6"} {
		f, err := os.Open(path)
		if err != nil {
			if path == "/proc/thread-self/net/tcp6" && os.IsNotExist(err) {
				continue // no IPv6 on this host
			}
			return 0, err
		}
		k, err := countConns(f.Name(), bufio.NewScanner(f), ends)
		f.Close()
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// countConns reads one /proc/net/tcp table: "sl local rem st ...", with
// addresses as HEXADDR:HEXPORT and the state in hex, and counts the open
// connections with an end in ends (procEnd's form). An end is matched by
// address and port: the proxies listen on several loopback addresses
// (proxyHost), where one port may serve several sockets.
func countConns(name string, sc *bufio.Scanner, ends map[string]bool) (int, error) {
	n, line := 0, 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if line == 1 || len(f) < 4 {
			continue // the header
		}
		switch f[3] {
		case "01", "03", "08": // ESTABLISHED, SYN_RECV, CLOSE_WAIT
		default:
			continue
		}
		for _, end := range f[1:3] {
			addr, hex, ok := strings.Cut(end, ":")
			_, err := strconv.ParseUint(hex, 16, 16)
			if !ok || (len(addr) != 8 && len(addr) != 32) || strings.Trim(addr, "0123456789abcdefABCDEF") != "" || err != nil {
				return 0, fmt.Errorf("%s:%d: address %q is not HEX:PORT", name, line, end)
			}
			if ends[strings.ToUpper(end)] {
				n++
				break
			}
		}
	}
	return n, sc.Err()
}
