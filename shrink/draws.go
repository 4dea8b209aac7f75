package shrink

import (
	"context"
	"fmt"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/workloads"
)

// maxDrawTries bounds the candidates of the draws pass: a trial records
// up to trial.MaxRecorded draws a stream, and blocks of them halve down to
// single draws.
const maxDrawTries = 400

// DrawsShrunk is what the draws pass did: the shrunk trial's recorded
// draws that were not the simplest (trial.SimplestDraw) before and after
// it, and the candidates it ran.
type DrawsShrunk struct {
	Before, After int
	Tried         int
}

// shrinkDraws shrinks the random draws of the best scenario as a choice
// sequence, as rapid and Hypothesis do: it records its trial's draws (the
// network's and each process's), then sets blocks of them to the simplest
// draw, each stream's whole first and halving down to single draws, then
// halves single draws left, keeping each change while the violation still
// occurs. The scenario carries the draws (draws:), trimmed of those the
// seed gives anyway, so that its file replays the trial.
func shrinkDraws(s *shrinker) (DrawsShrunk, error) {
	var res DrawsShrunk
	rec, seed, err := recordDraws(s.ctx, s.best)
	if err != nil {
		return res, err
	}
	res.Before = notSimplest(rec)
	s.pass = "simpler draws"
	d := &drawsPass{s: s, seed: seed, cur: rec}
	for i := range d.streams() {
		d.blocks(i)
	}
	for i := range d.streams() {
		d.halve(i)
	}
	res.Tried = d.tried
	after, _, err := recordDraws(s.ctx, s.best)
	if err != nil {
		return res, err
	}
	res.After = notSimplest(after)
	return res, nil
}

// drawsPass is the draws pass under way: cur the draws of the best
// scenario as recorded (untrimmed), tried its candidates so far.
type drawsPass struct {
	s     *shrinker
	seed  uint64 // the trial's, for trimming
	cur   *trial.Draws
	tried int
}

// streams is the number of streams: the network's, then a process's each.
func (d *drawsPass) streams() int { return 1 + len(d.cur.Procs) }

// stream is stream i of draws dr, and its name for people.
func stream(dr *trial.Draws, i int) (*[]uint64, string) {
	if i == 0 {
		return &dr.Net, "network"
	}
	return &dr.Procs[i-1], fmt.Sprintf("p%d", i-1)
}

// blocks sets blocks of stream i to the simplest draw: the whole stream,
// then halves, quarters and so on down to single draws.
func (d *drawsPass) blocks(i int) {
	n := d.len(i)
	for k := n; k >= 1; k /= 2 {
		for j := 0; j < n; j += k {
			end := min(j+k, n)
			if allSimplest(d.at(i)[j:end]) {
				continue
			}
			d.try(i, fmt.Sprintf("draws[%d:%d] simplest", j, end), func(w []uint64) {
				for x := j; x < end; x++ {
					w[x] = trial.SimplestDraw
				}
			})
		}
	}
}

// halve lowers each draw of stream i left above the simplest: halved
// while the violation holds.
func (d *drawsPass) halve(i int) {
	for j := range d.len(i) {
		for d.at(i)[j] > trial.SimplestDraw && d.try(i, fmt.Sprintf("draw %d halved", j), func(w []uint64) { w[j] /= 2 }) {
		}
	}
}

// at is stream i of the current draws (a kept change replaces them).
func (d *drawsPass) at(i int) []uint64 {
	v, _ := stream(d.cur, i)
	return *v
}

func (d *drawsPass) len(i int) int { return len(d.at(i)) }

// try runs the best scenario with stream i of its draws changed by
// change; kept, the change is the current draws'.
func (d *drawsPass) try(i int, what string, change func(w []uint64)) bool {
	if d.tried >= maxDrawTries {
		return false
	}
	cand := d.cur.Clone()
	w, name := stream(cand, i)
	change(*w)
	file := cand.Clone()
	if !file.Trim(d.seed) {
		file = nil
	}
	d.tried++
	if !d.s.try(name+" "+what, func(c *chaos.Scenario) bool { c.Draws = file; return true }) {
		return false
	}
	d.cur = cand
	return true
}

// recordDraws runs sc's one trial on the simulator, as run does, and
// returns the draws it made (trial.Config.Record) and its seed.
func recordDraws(ctx context.Context, sc *chaos.Scenario) (*trial.Draws, uint64, error) {
	c, err := clone(sc)
	if err != nil {
		return nil, 0, err
	}
	spec, err := workloads.FromScenario(c)
	if err != nil {
		return nil, 0, fmt.Errorf("draws of scenario %s: %w", sc.Name, err)
	}
	plan := spec.Plan()
	if len(plan) != 1 {
		return nil, 0, fmt.Errorf("draws of scenario %s: %d trials, want one", sc.Name, len(plan))
	}
	var rec trial.Draws
	plan[0].Watch(ctx, workloads.Sim, func(cfg *trial.Config) trial.Sink { cfg.Record = &rec; return nil })
	return &rec, plan[0].Seed, nil
}

// notSimplest counts the draws of dr that are not the simplest.
func notSimplest(dr *trial.Draws) int {
	n := 0
	for i := range 1 + len(dr.Procs) {
		v, _ := stream(dr, i)
		n += len(*v) - countSimplest(*v)
	}
	return n
}

func allSimplest(v []uint64) bool { return countSimplest(v) == len(v) }

func countSimplest(v []uint64) int {
	n := 0
	for _, x := range v {
		if x == trial.SimplestDraw {
			n++
		}
	}
	return n
}
