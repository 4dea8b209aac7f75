package pow

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/electbench/electbench/nodes"
)

// GrindConfig describes the grinding study (ALGORITHMS.md, "Identities"):
// N honest nodes each mint one identity; an adversary with a budget of CPU
// time mints as many as it can, m, and runs one node (one seat) with the best
// of them. Ranked by id, it holds the highest rank with probability m/(N+m):
// grinding buys rank. Ranked by H(id ‖ nonce) with the nonce drawn after every
// identity is fixed, the seat it committed to is as good as any other:
// 1/(N+1), the advantage gone. (Registering all m ids as m seats still wins
// with m/(N+m) under either ranking: that is a Sybil attack, priced by the
// puzzle, not by the ranking.)
type GrindConfig struct {
	Params    Params          // the identities' puzzle; only the static one is studied (DynBits must be 0)
	Honest    []int           // numbers N of honest identities, each ≥ 1
	Budgets   []time.Duration // the adversary's budgets, CPU time, each > 0
	Trials    int             // trials per (N, budget), ≥ 1
	Seed      uint64          // seeds every trial's keys and epoch nonce: same seed, same result
	KeyRate   float64         // key pairs one core tries per CPU-second; 0 means measure it by minting for Calibrate
	Calibrate time.Duration   // how long to measure KeyRate; 0 means 300 ms
	Workers   int             // goroutines running trials; 0 means runtime.GOMAXPROCS(0)
	Progress  func(done, total int)
}

// Estimate is a measured probability set against its closed form.
type Estimate struct {
	P    float64 // share of trials the adversary won
	Form float64 // closed form, averaged over the trials' m
	SE   float64 // standard error of P − Form (the paired per-trial differences)
}

// Z returns (P − Form)/SE: within ±2 in 95% of studies, beyond ±4 almost never
// unless the closed form is wrong.
func (e Estimate) Z() float64 {
	if e.P == e.Form {
		return 0
	}
	return (e.P - e.Form) / e.SE
}

// GrindRow is the result for one N and one budget.
type GrindRow struct {
	Honest   int           // N
	Budget   time.Duration // adversary's CPU time
	Attempts uint64        // key pairs the budget buys: Budget × KeyRate
	Trials   int
	MeanIDs  float64  // m̄: valid ids the adversary minted, mean over trials
	SDIDs    float64  // their standard deviation
	Static   Estimate // best id by id: against m/(N+m)
	Epoch    Estimate // committed id by epoch rank: against [m>0]/(N+1)
	EpochAll Estimate // all m ids by epoch rank (Sybil): against m/(N+m)
}

// GrindResult is the whole study.
type GrindResult struct {
	Params  Params
	KeyRate float64 // key pairs per CPU-second used to turn budgets into attempts
	Rows    []GrindRow
}

// Grind runs the study by real minting. Every trial draws a fresh stream of
// key pairs: the first N valid ids are the honest ones, the next
// Budget × KeyRate key pairs are the adversary's attempts. Budgets become
// attempt counts through KeyRate, so a loaded machine changes nothing but the
// calibration, and a fixed KeyRate makes the study exactly reproducible.
func Grind(ctx context.Context, c GrindConfig) (GrindResult, error) {
	if err := c.validate(); err != nil {
		return GrindResult{}, err
	}
	p := c.Params.normal()
	sum := p.sum()
	if c.KeyRate == 0 {
		d := c.Calibrate
		if d <= 0 {
			d = 300 * time.Millisecond
		}
		rate, err := measureKeyRate(ctx, p, sum, d)
		if err != nil {
			return GrindResult{}, err
		}
		c.KeyRate = rate
	}
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	attempts := make([]uint64, len(c.Budgets))
	for i, b := range c.Budgets {
		attempts[i] = uint64(math.Round(b.Seconds() * c.KeyRate))
	}
	maxN := slices.Max(c.Honest)
	maxA := slices.Max(attempts)

	// outcome[t][i][j]: trial t, Honest[i], Budgets[j].
	outcomes := make([][][]outcome, c.Trials)
	var done atomic.Int64
	var progressMu sync.Mutex
	err := parallelFor(ctx, workers, 0, c.Trials, func(t int) error {
		o, err := grindTrial(ctx, p, sum, grindSeed(c.Seed, t), c.Honest, maxN, attempts, maxA)
		if err != nil {
			return err
		}
		outcomes[t] = o
		if c.Progress != nil {
			progressMu.Lock()
			c.Progress(int(done.Add(1)), c.Trials)
			progressMu.Unlock()
		}
		return nil
	})
	if err != nil {
		return GrindResult{}, fmt.Errorf("pow: grind: %w", err)
	}
	res := GrindResult{Params: p, KeyRate: c.KeyRate}
	for i, n := range c.Honest {
		for j, b := range c.Budgets {
			res.Rows = append(res.Rows, summarize(n, b, attempts[j], outcomes, i, j))
		}
	}
	return res, nil
}

func (c *GrindConfig) validate() error {
	if err := c.Params.Validate(); err != nil {
		return err
	}
	switch {
	case c.Params.DynBits != 0:
		return fmt.Errorf("%w: grind studies the static puzzle; dynamic bits must be 0", ErrParams)
	case len(c.Honest) == 0 || slices.Min(c.Honest) < 1:
		return fmt.Errorf("%w: grind needs numbers of honest identities ≥ 1, got %v", ErrParams, c.Honest)
	case len(c.Budgets) == 0 || slices.Min(c.Budgets) <= 0:
		return fmt.Errorf("%w: grind needs positive budgets, got %v", ErrParams, c.Budgets)
	case c.Trials < 1:
		return fmt.Errorf("%w: grind needs at least one trial, got %d", ErrParams, c.Trials)
	case c.KeyRate < 0 || math.IsNaN(c.KeyRate) || math.IsInf(c.KeyRate, 0):
		return fmt.Errorf("%w: key rate %v", ErrParams, c.KeyRate)
	}
	return nil
}

// outcome is one trial's result for one N and one budget.
type outcome struct {
	m                       int
	static, epoch, epochAll bool
}

// grindTrial runs one trial for every N and budget: the honest sets are
// prefixes of one set of maxN ids, and the adversary's id sets prefixes of
// one run of maxA attempts, so each (N, budget) sees independent trials while
// sharing the minting.
func grindTrial(ctx context.Context, p Params, sum sumFunc, seed [32]byte, honestN []int, maxN int,
	attempts []uint64, maxA uint64) ([][]outcome, error) {
	s := newKeySearch(p, sum, seed)
	honest := make([]nodes.ID, 0, maxN)
	for tried := 0; len(honest) < maxN; tried++ {
		if s.try() {
			honest = append(honest, nodes.IDFromBytes(s.buf.id))
		}
		if tried%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	type found struct {
		at uint64 // attempt number, from 1
		id nodes.ID
	}
	var adv []found
	for a := uint64(1); a <= maxA; a++ {
		if s.try() {
			adv = append(adv, found{a, nodes.IDFromBytes(s.buf.id)})
		}
		if a%64 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	// The epoch nonce is drawn only now, every identity fixed.
	var nb [8]byte
	_, _ = s.rng.Read(nb[:])
	nonce := binary.BigEndian.Uint64(nb[:])

	out := make([][]outcome, len(honestN))
	for i, n := range honestN {
		var hiID, hiEpoch nodes.ID
		for _, id := range honest[:n] {
			hiID = maxID(hiID, id)
			hiEpoch = maxID(hiEpoch, EpochRank(id, nonce))
		}
		out[i] = make([]outcome, len(attempts))
		for j, a := range attempts {
			var o outcome
			var best, bestEpoch nodes.ID
			for _, f := range adv {
				if f.at > a {
					break
				}
				o.m++
				best = maxID(best, f.id)
				bestEpoch = maxID(bestEpoch, EpochRank(f.id, nonce))
			}
			if o.m > 0 {
				o.static = best.Compare(hiID) > 0
				o.epoch = EpochRank(best, nonce).Compare(hiEpoch) > 0
				o.epochAll = bestEpoch.Compare(hiEpoch) > 0
			}
			out[i][j] = o
		}
	}
	return out, nil
}

func maxID(a, b nodes.ID) nodes.ID {
	if a.Compare(b) >= 0 {
		return a
	}
	return b
}

func grindSeed(seed uint64, trial int) [32]byte {
	b := binary.BigEndian.AppendUint64([]byte("electbench/pow/grind/v1\x00"), seed)
	return sha256.Sum256(binary.BigEndian.AppendUint64(b, uint64(trial)))
}

func summarize(n int, budget time.Duration, attempts uint64, outcomes [][][]outcome, i, j int) GrindRow {
	r := GrindRow{Honest: n, Budget: budget, Attempts: attempts, Trials: len(outcomes)}
	var ms, st, ep, all, stF, epF []float64
	for _, o := range outcomes {
		x := o[i][j]
		m := float64(x.m)
		ms = append(ms, m)
		sybil := m / (float64(n) + m)
		fair := 0.0
		if x.m > 0 {
			fair = 1 / float64(n+1)
		}
		st, stF = append(st, b2f(x.static)), append(stF, sybil)
		ep, epF = append(ep, b2f(x.epoch)), append(epF, fair)
		all = append(all, b2f(x.epochAll))
	}
	r.MeanIDs, r.SDIDs = meanSD(ms)
	r.Static = estimate(st, stF)
	r.Epoch = estimate(ep, epF)
	r.EpochAll = estimate(all, stF)
	return r
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// estimate compares per-trial wins with per-trial closed-form probabilities.
func estimate(wins, form []float64) Estimate {
	d := make([]float64, len(wins))
	for i := range wins {
		d[i] = wins[i] - form[i]
	}
	p, _ := meanSD(wins)
	f, _ := meanSD(form)
	_, sd := meanSD(d)
	return Estimate{P: p, Form: f, SE: sd / math.Sqrt(float64(len(d)))}
}

// meanSD returns the mean and the sample standard deviation.
func meanSD(x []float64) (mean, sd float64) {
	if len(x) == 0 {
		return 0, 0
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// measureKeyRate mints on one goroutine for about d and returns the key pairs
// tried per CPU-second.
func measureKeyRate(ctx context.Context, p Params, sum sumFunc, d time.Duration) (float64, error) {
	var seed [32]byte
	s := newKeySearch(p, sum, seed)
	s.try() // warm up
	cpu0, wall0 := cpuTime(), time.Now()
	n := 0
	for time.Since(wall0) < d {
		for range 8 {
			s.try()
		}
		n += 8
		if err := ctx.Err(); err != nil {
			return 0, err
		}
	}
	spent := cpuTime() - cpu0
	if spent <= 0 {
		spent = time.Since(wall0)
	}
	return float64(n) / spent.Seconds(), nil
}

// GrindColumns are the CSV columns WriteCSV writes, in order; they are stable.
var GrindColumns = []string{
	"hash", "iterations", "bits", "honest", "budget_s", "key_rate", "attempts", "trials",
	"m_mean", "m_sd",
	"p_static", "form_static", "se_static", "z_static",
	"p_epoch", "form_epoch", "se_epoch", "z_epoch",
	"p_epoch_all", "form_epoch_all", "se_epoch_all", "z_epoch_all",
}

// WriteCSV writes one row per (N, budget) with a header line.
func (r GrindResult) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(GrindColumns); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, row := range r.Rows {
		rec := []string{
			string(r.Params.Hash), strconv.Itoa(r.Params.Iterations), strconv.Itoa(r.Params.Bits),
			strconv.Itoa(row.Honest), f(row.Budget.Seconds()), f(r.KeyRate),
			strconv.FormatUint(row.Attempts, 10), strconv.Itoa(row.Trials),
			f(row.MeanIDs), f(row.SDIDs),
		}
		for _, e := range []Estimate{row.Static, row.Epoch, row.EpochAll} {
			rec = append(rec, f(e.P), f(e.Form), f(e.SE), f(e.Z()))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
