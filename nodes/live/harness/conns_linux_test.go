package harness

import (
	"bufio"
	"strings"
	"testing"
)

// A /proc/net/tcp table as Linux writes it: a header, then one line per
// socket, ports in hex (0x1F90 = 8080, 0x1F91 = 8081).
const tcpTable = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1
   2: 0100007F:D431 0100007F:1F90 08 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1
   3: 0100007F:D432 0100007F:1F91 06 00000000:00000000 00:00000000 00000000     0        0 0 3 0 0 0 0 0 0
   4: 0100007F:D433 0100007F:0050 01 00000000:00000000 00:00000000 00000000     0        0 4 1 0 20 4 30 10 -1
   5: 0100007F:1F91 0100007F:D434 03 00000000:00000000 00:00000000 00000000     0        0 0 1 0 20 4 30 10 -1
   6: 0101007F:1F90 0100007F:D435 01 00000000:00000000 00:00000000 00000000     0        0 5 1 0 20 4 30 10 -1
`

func TestCountConns(t *testing.T) {
	for _, tc := range []struct {
		ends []string
		want int
	}{
		{[]string{"127.0.0.1:8080"}, 2},                   // listening (0A) not counted; either end counts
		{[]string{"127.0.0.1:8081"}, 1},                   // time wait (06) not counted; SYN received counts
		{[]string{"127.0.0.1:8080", "127.0.0.1:8081"}, 3}, // each connection once
		{[]string{"127.0.0.1:80"}, 1},
		{[]string{"127.0.0.1:9999"}, 0},
		{[]string{"127.0.1.1:8080"}, 1}, // the same port on another address is another end
		{[]string{"127.0.1.2:8080"}, 0},
	} {
		ends := map[string]bool{}
		for _, a := range tc.ends {
			e, ok := procEnd(a)
			if !ok {
				t.Fatalf("procEnd(%q) refused", a)
			}
			ends[e] = true
		}
		got, err := countConns("tcp", bufio.NewScanner(strings.NewReader(tcpTable)), ends)
		if err != nil || got != tc.want {
			t.Errorf("ends %v: %d, %v; want %d", tc.ends, got, err, tc.want)
		}
	}
	bad := tcpTable + "   7: 0100007F 0100007F:D434 01 x\n"
	if _, err := countConns("tcp", bufio.NewScanner(strings.NewReader(bad)), map[string]bool{"0100007F:0001": true}); err == nil ||
		!strings.Contains(err.Error(), `tcp:9: address "0100007F" is not HEX:PORT`) {
		t.Errorf("a line without a port: %v", err)
	}
	for _, a := range []string{"[::1]:80", "127.0.0.1", "localhost:80"} {
		if e, ok := procEnd(a); ok {
			t.Errorf("procEnd(%q) = %q, want refused", a, e)
		}
	}
}

// countConns never panics, whatever the table holds.
func FuzzCountConns(f *testing.F) {
	f.Add(tcpTable)
	f.Add("x\n 1: : : 01\n")
	f.Fuzz(func(t *testing.T, table string) {
		countConns("tcp", bufio.NewScanner(strings.NewReader(table)), map[string]bool{"0100007F:1F90": true})
	})
}
