package workloads

import (
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
)

// NewChecker is the checker of a trial about to run with cfg: for a quorum
// algorithm it watches terms and majorities, with the lease read in the
// unit tAlg that the algorithm's parameters are written in (T, or on live
// runs T plus the processing allowance; D takes the same allowance).
func NewChecker(cfg *trial.Config, tAlg time.Duration) (*check.Checker, error) {
	c := check.New(cfg.Ranks)
	if cfg.Algorithm.ElectsLowest {
		c.ElectLowest()
	}
	if cfg.Algorithm.ElectsAny {
		c.ElectAny()
	}
	if cfg.Algorithm.Restless && cfg.Algorithm.Mutex == nil {
		c.RunToDeadline()
	}
	if cfg.Ranks.Len() > 1 && cfg.Ranks.AllSame() {
		c.WatchSymmetry(cfg.T()) // an anonymous ring (--ids anonymous)
	}
	if cfg.Algorithm.Mutex != nil {
		if err := c.WatchMutex(cfg.Algorithm); err != nil {
			return nil, err
		}
	}
	c.WatchElections(cfg.Algorithm)
	if cfg.Algorithm.Quorum != nil {
		if err := c.WatchQuorum(cfg.Algorithm, nodes.Config{Variant: cfg.VariantName(), Params: cfg.Params, N: cfg.Ranks.Len(), T: tAlg, D: cfg.BoundIn(tAlg)}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// outcome is what a finished trial yields, whichever runtime ran it.
type outcome struct {
	rec        *trial.Record
	verdict    check.Verdict
	ranks      nodes.Ranks
	initiators []int
	// theory, when set, is computing the fault-free reference figures of
	// ranks and initiators (figuresAhead).
	theory *figures
	// crashedAtStart are the processes down before the run began: the
	// reference figures know that case (ALGORITHMS.md, the bully crash
	// case). faulty says anything else disturbed the run (a fault, a later
	// crash, a non-default detector): the figures are then bounds only.
	crashedAtStart []int
	faulty         bool
	// failure, when set, is why the runtime could not judge the trial
	// faithfully: the row is then neither correct nor live.
	failure string
}

// fillRow is the one row builder: it fills every column a trial's record,
// verdict and reference figures give, for both runtimes.
func (t Trial) fillRow(row *reports.Row, o outcome) {
	res, v, a := o.rec, o.verdict, t.Algo
	row.Messages = res.Messages
	row.MessagesByKind = countsByName(res.Sent, func(i int) string { return nodes.Kind(i).String() })
	row.Bytes = res.Bytes
	row.Timeouts = res.Timeouts
	row.Unseen = res.Unseen
	row.TimeoutsByKind = countsByName(res.Fired, func(i int) string { return nodes.TimerID(i).String() })
	row.Events = res.Events

	row.Correct, row.Live, row.Leader = v.Correct, v.Live, v.Leader
	row.SafetyViolations = v.Violations
	if len(v.Recorded) > 0 {
		row.Violation = oneLine(v.Recorded[0].String())
	}
	start := res.FirstInitiation
	if res.LastElection >= 0 && start >= 0 {
		row.TurnaroundS, row.TurnaroundT = inUnits(res.LastElection-start, res.T)
	}
	if v.Leader != "" && start >= 0 {
		row.DecidedS, row.DecidedT = inUnits(v.DecidedAt-start, res.T)
	}
	fillFailover(row, res, v)
	fillQuorum(row, res, v)
	fillBeliefs(row, res, v, a.Alg)
	fillDelays(row, res)
	fillMutex(row, res, v, a.Alg, nodes.Config{Variant: a.Variant, Params: a.Params, N: t.Nodes, T: res.T})
	row.Faults = faultSchedule(res.Faults)

	var faultFree nodes.Theory // the figure a scenario's messages expectation scales
	if a.Alg.Theory != nil && a.Alg.HasDefaultParams(a.Params, res.T, t.Spec.Latency.Bound()) {
		in := t.theoryInput(o.ranks, o.initiators)
		faultFree = o.theory.get(a.Alg.Theory, in)
		in.Crashed = o.crashedAtStart
		in.Faulty = o.faulty || !res.Detector.IsDefault(res.T)
		th := faultFree // a figure depends on its input only: ask again only for a different one
		if len(in.Crashed) > 0 || in.Faulty {
			th = a.Alg.Theory(in)
		}
		if th.Messages > 0 {
			row.TheoryMessages = reports.Some(th.Messages)
		}
		if th.Bound > 0 {
			row.TheoryBound = reports.Some(th.Bound)
		}
	}
	if o.failure != "" {
		row.Error = o.failure
		row.Correct, row.Live = false, false
	}
	row.Expect = checkTrial(t.Spec.Expect, row, faultFree)
}

// countsByName is reports.CountsFromMap of nodes.CountsByKind (or
// CountsByTimer) of counts, without the map between them: two maps a row,
// three allocations and 1% of a raft trial at N = 5 (issue 42). Kinds of
// one name (algorithms register their own) add up, as in the map.
func countsByName(counts []int64, name func(int) string) reports.Counts {
	c := make(reports.Counts, 0, 8)
	for i, n := range counts {
		if n != 0 {
			c = append(c, reports.KindCount{Kind: name(i), N: n})
		}
	}
	// A row counts a handful of kinds: sorted in place by insertion, where
	// slices.SortFunc's call a comparison was most of this function's 1%
	// of a raft trial at N = 5 (issue 42). Kinds of one name are added up
	// below, so their order among themselves does not matter.
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && c[j].Kind < c[j-1].Kind; j-- {
			c[j], c[j-1] = c[j-1], c[j]
		}
	}
	out := c[:0]
	for _, kc := range c {
		if len(out) > 0 && out[len(out)-1].Kind == kc.Kind {
			out[len(out)-1].N += kc.N
		} else {
			out = append(out, kc)
		}
	}
	return out
}

// fillDelays fills the delays the election messages took and turnaround
// in units of their mean (issue 17: turnaround against the T the network
// gave, beside turnaround_t against the configured one). Under the
// reference model every delay is T, so turnaround_tm is turnaround_t.
func fillDelays(row *reports.Row, res *trial.Record) {
	if res.Bound > 0 {
		row.Overruns = reports.Some(res.Overruns)
	}
	d := &res.Delays
	if d.Count == 0 {
		return
	}
	mean := d.Mean()
	row.DelayMeanS, row.DelayP99S = reports.Some(mean.Seconds()), reports.Some(d.Quantile(0.99).Seconds())
	if row.TurnaroundS.IsSet() && mean > 0 {
		// Back to whole nanoseconds, so that a turnaround of k delays is
		// exactly k of them.
		turnaround := math.Round(row.TurnaroundS.Get() * float64(time.Second))
		row.TurnaroundTM = reports.Some(turnaround / float64(mean))
	}
}

// fillFailover measures the first crash of a leader: detection (crash →
// first suspicion) and failover (crash → every live process knows the new
// leader), when the run recovered a correct leader.
func fillFailover(row *reports.Row, res *trial.Record, v check.Verdict) {
	for _, c := range res.Crashes {
		if !c.WasLeader {
			continue
		}
		if c.FirstSuspicion >= 0 {
			row.DetectS = reports.Some((c.FirstSuspicion - c.At).Seconds())
		}
		if v.Correct && v.DecidedAt >= c.At {
			row.FailoverS, row.FailoverT = inUnits(v.DecidedAt-c.At, res.T)
		}
		return
	}
}

// fillQuorum sets the columns that mean something else for a quorum
// algorithm (see the comment at the top of this file).
func fillQuorum(row *reports.Row, res *trial.Record, v check.Verdict) {
	if !v.Perpetual {
		return
	}
	row.Terms = reports.Some(int64(len(v.Terms)))
	row.SplitVotes = reports.Some(v.SplitVotes())
	var leaders []byte
	for i, t := range v.Terms {
		if i > 0 {
			leaders = append(leaders, ';')
		}
		leaders = strconv.AppendInt(leaders, t.Term, 10)
		leaders = append(leaders, '=')
		if t.Leader < 0 {
			leaders = append(leaders, '-')
		} else {
			leaders = strconv.AppendInt(leaders, int64(t.Leader), 10)
		}
	}
	row.TermLeaders = string(leaders)
	fillDisruption(row, res, v.Disruption)
	row.TurnaroundS, row.TurnaroundT = reports.Opt[float64]{}, reports.Opt[float64]{}
	if len(v.KnownAt) > 0 && res.FirstInitiation >= 0 {
		row.TurnaroundS, row.TurnaroundT = inUnits(v.KnownAt[0]-res.FirstInitiation, res.T)
	}
	for _, c := range res.Crashes {
		if !c.WasLeader {
			continue
		}
		row.DetectS, row.FailoverS, row.FailoverT = reports.Opt[float64]{}, reports.Opt[float64]{}, reports.Opt[float64]{}
		if d, ok := v.Downtime(c.At); ok {
			row.FailoverS, row.FailoverT = inUnits(d, res.T)
		}
		for _, t := range v.Terms {
			if t.Ballot >= c.At {
				row.DetectS = reports.Some((t.Ballot - c.At).Seconds())
				break
			}
		}
		return
	}
}

// fillDisruption sets the disruption columns of a quorum trial.
func fillDisruption(row *reports.Row, res *trial.Record, d check.Disruption) {
	row.Elections, row.Disruptions = reports.Some(d.Elections), reports.Some(d.Disruptions)
	row.LeaderlessS, row.LeaderlessT = inUnits(d.Leaderless, res.T)
	row.StaleLeaderS = reports.Some(d.StaleLeader.Seconds())
	row.TermInflation = reports.Some(d.TermInflation)
	if d.Healed {
		row.HealDisruptions = reports.Some(d.HealDisruptions)
	}
}

// fillBeliefs sets the disruption columns of an election without terms
// (check's beliefs.go): leaderless and stale leader time, and elections
// where the algorithm's Candidacy kind delimits them. disruptions,
// heal_disruptions and term_inflation need terms and stay empty.
func fillBeliefs(row *reports.Row, res *trial.Record, v check.Verdict, a *nodes.Algorithm) {
	if v.Perpetual || v.Mutex {
		return
	}
	d := v.Disruption
	row.LeaderlessS, row.LeaderlessT = inUnits(d.Leaderless, res.T)
	row.StaleLeaderS = reports.Some(d.StaleLeader.Seconds())
	if a.Candidacy != 0 {
		row.Elections = reports.Some(d.Elections)
	}
}

// fillMutex sets the columns of a mutual-exclusion trial (ALGORITHMS.md,
// "Mutual exclusion"): entries, messages per entry and per exit, client
// and synchronization delays, throughput and the voting-set size. An
// algorithm that spends no kind of its own to leave (token-ring, whose
// every TOKEN counts toward entry, ricart-agrawala, whose deferred
// replies are the next entries' permissions) has no exit_messages. Its
// turnaround and decided columns are left empty: a mutual-exclusion run
// elects nothing (central's leader column names its coordinator).
func fillMutex(row *reports.Row, res *trial.Record, v check.Verdict, a *nodes.Algorithm, cfg nodes.Config) {
	if !v.Mutex {
		return
	}
	row.TurnaroundS, row.TurnaroundT = reports.Opt[float64]{}, reports.Opt[float64]{}
	row.DecidedS, row.DecidedT = reports.Opt[float64]{}, reports.Opt[float64]{}
	if a.Mutex.VotingSet != nil {
		row.VotingSet = reports.Some(int64(a.Mutex.VotingSet(cfg)))
	}
	n := int64(len(v.Entries))
	row.Entries = reports.Some(n)
	if n == 0 {
		return
	}
	var entry, exit int64
	for _, k := range a.Mutex.Entry {
		if int(k) < len(res.Sent) {
			entry += res.Sent[k]
		}
	}
	var exits int64
	var client, sync time.Duration
	syncs := 0
	first, last := v.Entries[0].Requested, time.Duration(-1)
	for _, e := range v.Entries {
		client += e.Entered - e.Requested
		first = min(first, e.Requested)
		if e.Sync >= 0 {
			sync += e.Sync
			syncs++
		}
		if e.Exited >= 0 {
			exits++
			last = max(last, e.Exited)
		}
	}
	row.EntryMessages = reports.Some(float64(entry) / float64(n))
	if exits > 0 && len(a.Mutex.Exit) > 0 {
		for _, k := range a.Mutex.Exit {
			if int(k) < len(res.Sent) {
				exit += res.Sent[k]
			}
		}
		row.ExitMessages = reports.Some(float64(exit) / float64(exits))
	}
	row.ClientDelayS, row.ClientDelayT = inUnits(client/time.Duration(n), res.T)
	if syncs > 0 {
		row.SyncDelayS, row.SyncDelayT = inUnits(sync/time.Duration(syncs), res.T)
	}
	if last > first {
		row.Throughput = reports.Some(float64(exits) / (last - first).Seconds())
	}
}

// theoryInput is the input of a trial's fault-free reference figures.
func (t Trial) theoryInput(ranks nodes.Ranks, initiators []int) nodes.TheoryInput {
	return nodes.TheoryInput{Variant: t.Algo.Variant, N: t.Nodes, Ranks: ranks, Initiators: initiators, Params: t.Algo.Params}
}

// figures are reference figures computed on another goroutine while a
// simulated trial runs: for a ring of millions of processes they walk
// every rank (ring.shapeOf: about 0.2 s at ten million), which the
// second core does while the first runs the election.
type figures struct {
	in    nodes.TheoryInput
	done  chan struct{}
	th    nodes.Theory
	panic any // what theory panicked with, raised again by get
}

// figuresAhead starts computing theory(in).
func figuresAhead(theory func(nodes.TheoryInput) nodes.Theory, in nodes.TheoryInput) *figures {
	f := &figures{in: in, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		defer func() { f.panic = recover() }()
		f.th = theory(in)
	}()
	return f
}

// wait returns once the figures are computed.
func (f *figures) wait() { <-f.done }

// get returns theory(in): the figures computed ahead when f holds them
// for the same ranks and initiators (a trial's other inputs are fixed),
// computed now otherwise.
func (f *figures) get(theory func(nodes.TheoryInput) nodes.Theory, in nodes.TheoryInput) nodes.Theory {
	if f == nil || !f.in.Ranks.Same(in.Ranks) || !sameSlice(f.in.Initiators, in.Initiators) {
		return theory(in)
	}
	f.wait()
	if f.panic != nil {
		panic(f.panic)
	}
	return f.th
}

// sameSlice reports whether a and b are the same slice of memory.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}
