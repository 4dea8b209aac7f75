package ring

import (
	"maps"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Golden message transcripts of the ring figures of ALGORITHMS.md on five
// processes (testdata/*.txt; go test ./nodes/ring -run Golden -rewrite
// regenerates them). Each test also checks its figure from the network's
// own counts.

// ALGORITHMS.md, "`ring` — basic ring election", as carried over to
// "`chang-roberts` — ring with a participation flag": one initiator, the
// successor of the would-be leader (worst case): 3N−1 messages, turnaround
// 3N−1 T; the would-be leader itself (best case): 2N messages, 2N T. Ids
// ascend round the ring, so the leader 5 sits at position 4 and position 0
// follows it.
func TestGoldenChangRoberts(t *testing.T) {
	const size = 5
	for _, c := range []struct {
		golden    string
		initiator int
		election  int // ELECTION messages; ELECTED goes round once more
	}{
		{"chang-roberts-worst", 0, 2*size - 1},
		{"chang-roberts-best", 4, size},
	} {
		t.Run(c.golden, func(t *testing.T) {
			n := newNet(t, "chang-roberts", ranks(1, 2, 3, 4, 5))
			n.Initiate(c.initiator)
			n.run()
			n.checkElected(nodes.RankOf(5))
			if _, once := n.leaders(); !once {
				t.Fatalf("decisions %v: want one each", n.decisions())
			}
			want := map[string]int{"ELECTION": c.election, "ELECTED": size}
			total := c.election + size // 3N−1 or 2N
			if got := n.SentByKind(); !maps.Equal(got, want) || n.Messages() != total {
				t.Fatalf("sent %v (%d), want %v (%d)", got, n.Messages(), want, total)
			}
			if got := n.LastElection(); got != time.Duration(total)*T {
				t.Fatalf("turnaround %v, want %d T", got, total)
			}
			n.Golden(c.golden)
		})
	}
}

// ALGORITHMS.md, "`lcr` — LeLann–Chang–Roberts": with ids decreasing in the
// direction of travel, N(N+1)/2 election messages + N termination, and a
// turnaround of 2N T with simultaneous start.
func TestGoldenLCRDescending(t *testing.T) {
	const size = 5
	n := newNet(t, "lcr", ranks(5, 4, 3, 2, 1))
	n.run()
	n.checkElected(nodes.RankOf(5))
	want := map[string]int{"ELECTION": size * (size + 1) / 2, "ELECTED": size}
	if got := n.SentByKind(); !maps.Equal(got, want) || n.Messages() != size*(size+1)/2+size {
		t.Fatalf("sent %v (%d), want %v", got, n.Messages(), want)
	}
	if got := n.LastElection(); got != 2*size*T {
		t.Fatalf("turnaround %v, want 2N T", got)
	}
	n.Golden("lcr-descending")
}
