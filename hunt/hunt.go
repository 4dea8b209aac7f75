package hunt

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Options are what a hunt searches, for what, and for how long.
type Options struct {
	Space    *Space
	Property Property
	// Trials bounds the candidates drawn (those the scenario checks refuse
	// included); Time, when set, the wall time, checked between batches.
	// At least one is set.
	Trials int
	Time   time.Duration
	Seed   uint64 // the search's random stream: the same seed finds the same counterexample
	// Parallel is how many candidates run at once; 0: one per core. It
	// changes nothing found.
	Parallel int
	// Uniform turns guidance off: every candidate is a fresh draw (for
	// comparing guided and uniform search).
	Uniform bool
	// BeyondModel counts a violation beyond the algorithm's model (a
	// bounded-delay algorithm whose message took longer than its D, no
	// process left, a quorum without a majority up) as a counterexample;
	// without it such a trial is counted and passed over.
	BeyondModel bool
	// Progress, when set, is told the search's figures after each batch.
	Progress func(Stats)
}

// Stats are a search's figures so far.
type Stats struct {
	Trials  int // candidates run
	Invalid int // candidates the scenario checks refused (not run)
	States  int // distinct abstract states reached (coverage)
	Corpus  int // candidates kept for reaching new states
	Beyond  int // violating trials beyond their algorithm's model, passed over
	// Best is the candidate that reached the most states in one trial, as
	// "raft N=5, 2 faults: 31 states"; "" before the first.
	Best       string
	bestStates int
}

// Finding is a counterexample.
type Finding struct {
	Trial     int    // the candidate's number in the search, from 1
	File      []byte // the scenario file to write: counterexample.yaml
	Algorithm string // name/variant
	Nodes     int
	Faults    int
	What      string // the expectation that failed and what the trial did instead
	Beyond    string // why it lies beyond the algorithm's model (with BeyondModel); "" within it
}

// batchSize is how many candidates are drawn at once, from the corpus as
// it stood at the batch's start, and run in parallel: fixed, so that what
// is drawn does not depend on Parallel.
const batchSize = 8

// Run searches until it finds a counterexample or spends its budget. The
// error is ctx's when it was interrupted (the figures say how far it
// went), or says why the search could not go on.
func Run(ctx context.Context, o Options) (*Finding, Stats, error) {
	if o.Trials <= 0 && o.Time <= 0 {
		return nil, Stats{}, errors.New("hunt: no budget")
	}
	h := newHunter(o)
	parallel := o.Parallel
	if parallel <= 0 {
		parallel = runtime.GOMAXPROCS(0)
	}
	start, drawn := time.Now(), 0
	var st Stats
	for (o.Trials <= 0 || drawn < o.Trials) && (o.Time <= 0 || time.Since(start) < o.Time) {
		n := batchSize
		if o.Trials > 0 {
			n = min(n, o.Trials-drawn)
		}
		batch := make([]*candidate, n)
		h.corpus.weigh()
		for i := range batch {
			batch[i] = h.next()
		}
		results := h.runBatch(ctx, batch, drawn, parallel)
		for i, r := range results {
			// Interrupted: the candidates before the first cut short
			// still count, so that a violation found is kept.
			if r.cut {
				return nil, st, ctx.Err()
			}
			if f := h.fold(&st, batch[i], r, drawn+i+1); f != nil {
				f, err := h.finish(ctx, batch[i], r, f)
				return f, st, err
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, st, err
		}
		drawn += n
		if o.Progress != nil {
			o.Progress(st)
		}
	}
	return nil, st, nil
}

// hunter is one search's state: its random stream, its coverage and its
// corpus.
type hunter struct {
	o      Options
	gen    generator
	corpus corpus
}

func newHunter(o Options) *hunter {
	return &hunter{o: o, gen: generator{s: o.Space, r: rand.New(rand.NewPCG(o.Seed, 0x68756e74))}, corpus: corpus{index: map[uint64]int32{}}}
}

// next draws a candidate: fresh, or half the time once the corpus holds
// some (guided search), a mutation of one of them. Half, not more: a
// violation dense among fresh draws (one in 30) is found by them, and a
// quarter fresh made the searches of HUNT.md's table slower (raft with
// amnesia 89 against 93.5 guided, but raft's six disruptions 42 against
// 32.5 and zookeeper's four 130 against 97 on 3..8 processes).
func (h *hunter) next() *candidate {
	if h.o.Uniform || len(h.corpus.entries) == 0 || h.gen.r.IntN(2) == 0 {
		return h.gen.fresh()
	}
	return h.corpus.mutate(&h.gen)
}

// runBatch runs the batch's candidates, parallel at a time; first is the
// number of candidates drawn before it.
func (h *hunter) runBatch(ctx context.Context, batch []*candidate, first, parallel int) []result {
	results := make([]result, len(batch))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, c := range batch {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			results[i] = h.evaluate(ctx, c, first+i+1)
		})
	}
	wg.Wait()
	return results
}

// fold takes one candidate's result into the search, in candidate order:
// its states into the coverage, the candidate into the corpus if it
// reached new ones. It returns the finding when the candidate violates
// the property within its model (or beyond it, with BeyondModel).
func (h *hunter) fold(st *Stats, c *candidate, r result, k int) *Finding {
	if r.invalid != nil {
		st.Invalid++
		return nil
	}
	st.Trials++
	h.corpus.consider(c, r, h.o.Uniform)
	st.States, st.Corpus = len(h.corpus.hits), len(h.corpus.entries)
	if len(r.states) > st.bestStates {
		st.bestStates = len(r.states)
		st.Best = fmt.Sprintf("%s N=%d, %d faults: %d states", r.algo, c.nodes, len(c.faults), len(r.states))
	}
	if !r.violated {
		return nil
	}
	if r.beyond != "" && !h.o.BeyondModel {
		st.Beyond++
		return nil
	}
	return &Finding{Trial: k, Algorithm: r.algo, Nodes: c.nodes, Faults: len(c.faults), What: r.what, Beyond: r.beyond}
}

// watchCoverage is the sink a candidate's trial feeds.
func watchCoverage(cov **coverage) func(cfg *trial.Config) trial.Sink {
	return func(cfg *trial.Config) trial.Sink {
		*cov = newCoverage(cfg)
		return *cov
	}
}
