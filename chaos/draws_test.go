package chaos

import (
	"slices"
	"strings"
	"testing"
)

// A scenario's draws read as written, up to 2^64-1, and Format writes them
// back (a process without draws as an empty list, keeping the others'
// positions).
func TestDrawsRoundTrip(t *testing.T) {
	const file = `name: drawn
algorithms: [bully]
nodes: 3
trials: 1
draws:
  network: [1, 1, 18446744073709551615, 0x10]
  processes:
    - []
    - [1, 7]
`
	scs, err := Parse("drawn.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	d := scs[0].Draws
	if d == nil || !slices.Equal(d.Net, []uint64{1, 1, 1<<64 - 1, 16}) || len(d.Procs) != 2 || d.Procs[0] != nil || !slices.Equal(d.Procs[1], []uint64{1, 7}) {
		t.Fatalf("read draws %+v", d)
	}
	roundTrip(t, scs[0])
}

// Bad draws: one error naming the field and position.
func TestDrawsRefused(t *testing.T) {
	for _, c := range []struct{ draws, want string }{
		{"{network: [1, -2]}", "draws.network[1]: want a draw (a whole number from 0 to 2^64-1), got -2"},
		{"{network: [18446744073709551616]}", "draws.network[0]: want a draw"},
		{"{network: [1.5]}", "draws.network[0]: want a draw"},
		{"{network: 3}", "draws.network: want a list of draws"},
		{"{processes: [[1], x]}", "draws.processes[1]: want a list of draws"},
		{"{timers: [1]}", "draws.timers: unknown field"},
		{"[1, 2]", "draws: want a mapping"},
	} {
		_, err := Parse("bad.yaml", []byte("name: bad\nalgorithms: [bully]\ndraws: "+c.draws+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("draws: %s: got %v, want an error containing %q", c.draws, err, c.want)
		}
	}
}
