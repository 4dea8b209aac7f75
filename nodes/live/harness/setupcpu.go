package harness

import (
	"fmt"
	"strings"
	"time"

	"github.com/electbench/electbench/internal/cputime"
)

// setupCPU is the CPU time the harness (with an embedded Toxiproxy, its
// relays) and the node processes had used at each of the set-up's phase
// boundaries: a set-up's wall time on a busy host says little, what each
// side spent says where to cut.
type setupCPU struct {
	harness, nodes []time.Duration
	known          bool
}

// mark samples both at a phase boundary; pids are the node processes.
func (c *setupCPU) mark(pids []int) {
	h, ok := cputime.Self()
	n, nok := nodesCPU(pids)
	c.known = (len(c.harness) == 0 || c.known) && ok && nok
	c.harness, c.nodes = append(c.harness, h), append(c.nodes, n)
}

// rebase makes the last mark's node time count from the processes'
// present CPU: kept processes come with their earlier trials'.
func (c *setupCPU) rebase(pids []int) {
	if n, ok := nodesCPU(pids); ok && len(c.nodes) > 0 {
		c.nodes[len(c.nodes)-1] = n
	}
}

// String is each phase's CPU, harness + nodes, in the order marked and
// named.
func (c *setupCPU) String(phases ...string) string {
	if !c.known {
		return "unknown"
	}
	var b strings.Builder
	for i, name := range phases {
		if i+1 >= len(c.harness) {
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.2f + %.2f s", name, (c.harness[i+1] - c.harness[i]).Seconds(), (c.nodes[i+1] - c.nodes[i]).Seconds())
	}
	return b.String()
}
