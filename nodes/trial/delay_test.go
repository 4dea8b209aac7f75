package trial

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestDelaysConstant: a trial whose messages all take T (the reference
// model) gets T exactly as its mean and its p99, whatever T.
func TestDelaysConstant(t *testing.T) {
	for _, v := range []time.Duration{0, 1, 127, 128, 255, 5 * time.Millisecond, 1234567891} {
		var d Delays
		for range 1000 {
			d.Add(v)
		}
		if d.Mean() != v || d.Quantile(0.99) != v || d.Quantile(0.5) != v || d.Count != 1000 {
			t.Fatalf("%v: mean %v p99 %v p50 %v count %d", v, d.Mean(), d.Quantile(0.99), d.Quantile(0.5), d.Count)
		}
	}
	var none Delays
	if none.Mean() != 0 || none.Quantile(0.99) != 0 {
		t.Fatal("no delays: want zeros")
	}
}

// TestDelaysAgainstSorting checks the histogram against the deliberately
// simple reference: sort every delay and take the ⌈q·n⌉-th. The quantile
// may exceed it by a bucket's width (1/128 of the value), never fall below
// it; the mean is exact.
func TestDelaysAgainstSorting(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, gen := range []func() time.Duration{
		func() time.Duration { return time.Millisecond + time.Duration(r.Int64N(int64(4*time.Millisecond))) },
		func() time.Duration { return time.Duration(r.ExpFloat64() * float64(2*time.Millisecond)) },
		func() time.Duration { return time.Duration(r.Int64N(300)) },
	} {
		var d Delays
		var all []time.Duration
		var sum time.Duration
		for range 5000 {
			v := gen()
			d.Add(v)
			all = append(all, v)
			sum += v
		}
		slices.Sort(all)
		if want := time.Duration(math.Round(float64(sum) / 5000)); d.Mean() != want {
			t.Fatalf("mean %v, want %v", d.Mean(), want)
		}
		for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 1} {
			exact := all[int(math.Ceil(q*float64(len(all))))-1]
			got := d.Quantile(q)
			if got < exact || float64(got-exact) > float64(exact)/128+1 {
				t.Fatalf("q%v = %v, exact %v", q, got, exact)
			}
		}
		if d.Min != all[0] || d.Max != all[len(all)-1] {
			t.Fatalf("min %v max %v, want %v %v", d.Min, d.Max, all[0], all[len(all)-1])
		}
	}
}

// TestDelaysNegativeIsZero: two clocks read nanoseconds apart may make a
// live delay negative; it counts as no delay.
func TestDelaysNegativeIsZero(t *testing.T) {
	var d Delays
	d.Add(-5)
	if d.Min != 0 || d.Max != 0 || d.Sum != 0 || d.Count != 1 {
		t.Fatalf("%+v", d)
	}
}

// TestDelaysFewAsHistogram: a trial's first delays, kept unbucketed, give
// the quantiles the histogram gives for the same delays (AddN buckets from
// the first), below, at and past the number kept, so that no row changes.
func TestDelaysFewAsHistogram(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 5, 20, fewDelays - 1, fewDelays, fewDelays + 1, 3 * fewDelays} {
		for range 50 {
			var few, hist Delays
			for range n {
				v := time.Millisecond + time.Duration(r.Int64N(int64(4*time.Millisecond)))
				if r.IntN(10) == 0 {
					v = time.Duration(r.Int64N(300)) - 5
				}
				few.Add(v)
				hist.AddN(v, 1)
			}
			if few.Count != hist.Count || few.Sum != hist.Sum || few.Min != hist.Min || few.Max != hist.Max {
				t.Fatalf("n=%d: %d %v %v %v, histogram %d %v %v %v", n, few.Count, few.Sum, few.Min, few.Max, hist.Count, hist.Sum, hist.Min, hist.Max)
			}
			for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 1} {
				if few.Quantile(q) != hist.Quantile(q) {
					t.Fatalf("n=%d q%v: %v, histogram %v", n, q, few.Quantile(q), hist.Quantile(q))
				}
			}
		}
	}
}
