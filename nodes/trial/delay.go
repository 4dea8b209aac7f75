package trial

import (
	"math"
	"math/bits"
	"slices"
	"time"
)

// Delays summarises the one-way delays of a trial's election messages
// (issue 17: live rows in units of the T the network actually gave, not
// the one configured). The mean is exact; quantiles come from a
// log-linear histogram whose buckets are at most 1/128 of their value
// wide (below 128 ns, 1 ns), clamped to the least and greatest delay seen,
// so that a trial whose delays are all equal (constant latency) gets that
// delay exactly. A bucket group (a power of two) is allocated when a delay
// first falls in it: a trial under constant latency holds one, 1 KiB.
// The first fewDelays delays are kept as they are, unbucketed, and go into
// the histogram only when one more comes: a small trial's few dozen
// messages spread over three or four groups under uniform(1ms,5ms), and
// their 3-4 KiB, most of a 5-process trial's allocation, paced the garbage
// collector (issue 42). Quantiles read from the few give what the
// histogram would: the bucket of the delay of that rank.
type Delays struct {
	Count    int64
	Sum      time.Duration
	Min, Max time.Duration
	groups   []*[delaySubs]int64      // group 0: 0..127 ns; group g ≥ 1: [128·2^(g−1), 256·2^(g−1))
	few      [fewDelays]time.Duration // the first Count delays while groups is nil
}

const (
	delaySubBits = 7
	delaySubs    = 1 << delaySubBits // buckets per group
	// fewDelays is how many delays are kept before the histogram: a
	// 5-process trial of chang-roberts or bully with a crash sends 20 to 50
	// election messages.
	fewDelays = 64
)

// Add notes one delay; a negative one (two clocks read a few nanoseconds
// apart, live) counts as zero.
func (d *Delays) Add(v time.Duration) {
	// The common case, kept short: a bucket that exists already.
	if g, s := delayBucket(uint64(v)); v >= 0 && d.Count > 0 && g < len(d.groups) && d.groups[g] != nil {
		d.groups[g][s]++
		d.Count++
		d.Sum += v
		d.Min, d.Max = min(d.Min, v), max(d.Max, v)
		return
	}
	if d.groups == nil && d.Count < fewDelays {
		v = max(v, 0)
		if d.Count == 0 {
			d.Min, d.Max = v, v
		}
		d.few[d.Count] = v
		d.Count++
		d.Sum += v
		d.Min, d.Max = min(d.Min, v), max(d.Max, v)
		return
	}
	d.AddN(v, 1)
}

// spill moves the few delays kept unbucketed into the histogram.
func (d *Delays) spill() {
	for _, v := range d.few[:d.Count] {
		g, s := delayBucket(uint64(v))
		d.grow(g)[s]++
	}
}

// grow returns group g, allocating it (and room for it) if need be.
func (d *Delays) grow(g int) *[delaySubs]int64 {
	if g >= len(d.groups) {
		d.groups = append(d.groups, make([]*[delaySubs]int64, g+1-len(d.groups))...)
	}
	if d.groups[g] == nil {
		d.groups[g] = new([delaySubs]int64)
	}
	return d.groups[g]
}

// AddN notes n delays of v each (the simulator under constant latency
// counts its messages and notes them once, at the end).
func (d *Delays) AddN(v time.Duration, n int64) {
	if n <= 0 {
		return
	}
	v = max(v, 0)
	if d.groups == nil {
		d.spill()
	}
	if d.Count == 0 || v < d.Min {
		d.Min = v
	}
	d.Max = max(d.Max, v)
	d.Count += n
	d.Sum += v * time.Duration(n)
	g, s := delayBucket(uint64(v))
	d.grow(g)[s] += n
}

// delayBucket is the group and sub-bucket of v.
func delayBucket(v uint64) (group, sub int) {
	if v < delaySubs {
		return 0, int(v)
	}
	shift := bits.Len64(v) - delaySubBits - 1 // v >> shift is in [128, 256)
	return shift + 1, int(v>>shift) - delaySubs
}

// bucketTop is the greatest value of group g's sub-bucket s.
func bucketTop(g, s int) uint64 {
	if g == 0 {
		return uint64(s)
	}
	shift := g - 1
	return (uint64(s+delaySubs+1) << shift) - 1
}

// Mean is the mean delay; zero with none.
func (d *Delays) Mean() time.Duration {
	if d.Count == 0 {
		return 0
	}
	return time.Duration(math.Round(float64(d.Sum) / float64(d.Count)))
}

// Quantile is the q-quantile of the delays (0 < q ≤ 1): the least bucket
// holding at least ⌈q·Count⌉ delays at or below it, as its greatest value,
// within [Min, Max]. Zero with none.
func (d *Delays) Quantile(q float64) time.Duration {
	if d.Count == 0 {
		return 0
	}
	rank := max(int64(math.Ceil(q*float64(d.Count))), 1)
	if rank >= d.Count {
		// The greatest delay's bucket, clamped to it: the p99 of up to 100
		// delays, a small trial's, without a look at the buckets or a sort.
		return d.Max
	}
	if d.groups == nil {
		// The delay of that rank lies in the bucket the histogram would stop at.
		few := d.few
		sorted := few[:d.Count]
		slices.Sort(sorted)
		g, s := delayBucket(uint64(sorted[min(rank, d.Count)-1]))
		return min(max(time.Duration(bucketTop(g, s)), d.Min), d.Max)
	}
	var seen int64
	for g, grp := range d.groups {
		if grp == nil {
			continue
		}
		for s, c := range grp {
			if seen += c; seen >= rank {
				return min(max(time.Duration(bucketTop(g, s)), d.Min), d.Max)
			}
		}
	}
	return d.Max
}
