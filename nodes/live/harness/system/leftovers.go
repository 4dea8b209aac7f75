//go:build linux

package system

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/google/nftables"

	"github.com/electbench/electbench/nodes/live/harness/netcut"
)

// Leftovers lists what the run of process pid, whose members ran as uids,
// left behind: each process still running as one of the uids and the
// run's nftables table (netcut). It is empty once the run has cleaned up;
// the tests of a run's end, its Ctrl-C and a killed run's clean-up check
// it, so they check the same things the same way.
func Leftovers(pid int, uids []uint32) ([]string, error) {
	pids, err := Processes(uids)
	if err != nil {
		return nil, err
	}
	var left []string
	for _, p := range pids {
		left = append(left, fmt.Sprintf("process %d", p))
	}
	conn, err := nftables.New()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", netcut.ErrNoNetlink, err)
	}
	tables, err := conn.ListTables()
	if err != nil {
		return nil, fmt.Errorf("%w: listing tables: %w", netcut.ErrNoNetlink, err)
	}
	for _, tb := range tables {
		if strings.HasPrefix(tb.Name, netcut.OwnedBy(pid)) {
			left = append(left, "nftables table "+tb.Name)
		}
	}
	return left, nil
}

// Processes lists the pids of the processes running as any of uids (a
// member runs as a uid of its own: runBlock).
func Processes(uids []uint32) ([]int, error) {
	status, err := filepath.Glob("/proc/[0-9]*/status")
	if err != nil {
		return nil, fmt.Errorf("listing processes: %w", err)
	}
	var pids []int
	for _, s := range status {
		b, err := os.ReadFile(s)
		if err != nil {
			continue // it exited
		}
		for l := range strings.Lines(string(b)) {
			f := strings.Fields(l)
			if len(f) < 2 || f[0] != "Uid:" {
				continue
			}
			uid, err := strconv.ParseUint(f[1], 10, 32)
			if err == nil && slices.Contains(uids, uint32(uid)) {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(s)))
				pids = append(pids, pid)
			}
			break
		}
	}
	return pids, nil
}
