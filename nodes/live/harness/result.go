package harness

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/nodes/trial"
)

// Info is what one live trial acquired.
type Info struct {
	Toxiproxy  string   // the API endpoint of the first server
	Servers    []string // every server's, by server: a link's proxy is on its receiver's (serverOf)
	ServerPIDs []int    // those of Servers that are processes of their own (not the embedded or external one)
	Prefix     string   // every proxy of the trial is named with it
	Proxies    []string // proxy names
	ProxyAddrs []string // their listen addresses
	PIDs       []int    // node processes (each leads its own process group)
	NodeAddrs  []string // the nodes' listen addresses
	Dir        string   // the trial's temporary directory (identities)
}

// Result is one live trial: the neutral record, and what only the live
// runtime sees.
type Result struct {
	trial.Record
	Ranks []nodes.Rank // by position: the identities the nodes minted
	// Refused lists the positions whose identity the harness's own check
	// refused (its puzzle, or its key's proof: procs.hello); they take no
	// part (as if crashed at the start). What nodes refused of one another
	// is in Record.Disputes.
	Refused []int
	// Refusals counts handshake refusals, as every node counted them.
	Refusals int64
	// Sent, Received and Dropped are message counts by kind from the step
	// lines of every node (the runtime's PING and PING_ACK excluded);
	// Dropped were sent with no link up and never written. Lost is what
	// was written but never delivered: sent − dropped − received.
	Sent, Received, Dropped, Lost Counts
	// DeliveredFrom counts the messages delivered to any machine, by
	// sender position: a refused node's stays zero.
	DeliveredFrom []int64
	// Stats are the nodes' own final counts, by position; nil for a node
	// that did not stop cleanly (crashed, refused).
	Stats []*live.Stats
	// Suspicions are the detector verdicts the machines were given.
	Suspicions []Suspicion
	// Lifted is when each link fault's heal had taken effect, in the
	// order healed: the trace notes a heal before it is lifted (between
	// its two entries a fault holds), and lifting takes a while live
	// (Toxiproxy requests, a host's nftables rules).
	Lifted []Lift
	Info   Info
	// Clocks are the estimates of the hosts' clocks, by host (clock.go);
	// nil with every node on this host.
	Clocks []HostClock
}

// Lift is a link fault's heal in effect: fault ID's, lifted at At.
type Lift struct {
	ID int
	At time.Duration
}

// Suspicion is one verdict: By suspected Of at At.
type Suspicion struct {
	At     time.Duration
	By, Of int
}

// Counts are message counts by nodes.Kind.
type Counts []int64

func newCounts() Counts { return make(Counts, nodes.NumKinds()) }

// grow makes room for the kinds registered since c was made: an external
// program's, registered as its nodes first name them.
func (c *Counts) grow() {
	if k := nodes.NumKinds(); k > len(*c) {
		*c = append(*c, make([]int64, k-len(*c))...)
	}
}

// Total is the sum of the counts.
func (c Counts) Total() int64 {
	var t int64
	for _, v := range c {
		t += v
	}
	return t
}

// String lists the non-zero counts as KIND=n;KIND=n, by kind name.
func (c Counts) String() string {
	var parts []string
	for k, v := range c {
		if v != 0 {
			parts = append(parts, fmt.Sprintf("%s=%d", nodes.Kind(k), v))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ";")
}
