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
`

func TestCountConns(t *testing.T) {
	for _, tc := range []struct {
		ports []int
		want  int
	}{
		{[]int{8080}, 2},       // listening (0A) not counted; either end counts
		{[]int{8081}, 1},       // time wait (06) not counted; SYN received counts
		{[]int{8080, 8081}, 3}, // each connection once
		{[]int{80}, 1},
		{[]int{9999}, 0},
	} {
		ports := map[int]bool{}
		for _, p := range tc.ports {
			ports[p] = true
		}
		got, err := countConns("tcp", bufio.NewScanner(strings.NewReader(tcpTable)), ports)
		if err != nil || got != tc.want {
			t.Errorf("ports %v: %d, %v; want %d", tc.ports, got, err, tc.want)
		}
	}
	bad := tcpTable + "   6: 0100007F 0100007F:D434 01 x\n"
	if _, err := countConns("tcp", bufio.NewScanner(strings.NewReader(bad)), map[int]bool{1: true}); err == nil ||
		!strings.Contains(err.Error(), `tcp:8: address "0100007F" is not HEX:PORT`) {
		t.Errorf("a line without a port: %v", err)
	}
}

// countConns never panics, whatever the table holds.
func FuzzCountConns(f *testing.F) {
	f.Add(tcpTable)
	f.Add("x\n 1: : : 01\n")
	f.Fuzz(func(t *testing.T, table string) {
		countConns("tcp", bufio.NewScanner(strings.NewReader(table)), map[int]bool{8080: true})
	})
}
