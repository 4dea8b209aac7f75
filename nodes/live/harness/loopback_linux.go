package harness

import "strconv"

// loopbackHosts are the addresses proxies listen on: Linux routes all of
// 127.0.0.0/8 to the loopback interface. A listener that asks the kernel
// for a port (":0") costs a search through the ports in use on its
// address: with every proxy on 127.0.0.1, a proxy took 1.5–4 ms of kernel
// time past 7,000 of them rather than 0.1 ms, and the 16,256 proxies of a
// complete graph of 128 nodes took 22–32 s (a populate call sometimes
// outlived its 10 s deadline). Spread over 64 addresses, 18,432 took
// 1.6 s, each thousand as fast as the first.
var loopbackHosts = func() []string {
	h := make([]string, 64)
	for i := range h {
		h[i] = "127.0.1." + strconv.Itoa(i+1)
	}
	return h
}()

// proxyHost is the address the proxy of a link into spawn index to listens
// on: the proxies into one node share one, about 250 at N = 128.
func proxyHost(to int) string { return loopbackHosts[to%len(loopbackHosts)] }
