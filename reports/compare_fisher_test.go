package reports

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// refFisherP is the deliberately simple reference: every table with the
// observed margins, its hypergeometric probability as an exact rational
// C(K,x)·C(N−K,n1−x)/C(N,n1), summing those no more probable than the
// observed table.
func refFisherP(k1, n1, k2, n2 int) float64 {
	n, k := n1+n2, k1+k2
	binom := func(a, b int) *big.Int {
		if b < 0 || b > a {
			return big.NewInt(0)
		}
		return new(big.Int).Binomial(int64(a), int64(b))
	}
	total := binom(n, n1)
	prob := func(x int) *big.Rat {
		num := new(big.Int).Mul(binom(k, x), binom(n-k, n1-x))
		return new(big.Rat).SetFrac(num, total)
	}
	obs := prob(k1)
	sum := new(big.Rat)
	for x := 0; x <= n1; x++ {
		if p := prob(x); p.Sign() > 0 && p.Cmp(obs) <= 0 {
			sum.Add(sum, p)
		}
	}
	f, _ := sum.Float64()
	return f
}

func TestFisherExactAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 400 {
		n1, n2 := 1+rng.IntN(40), 1+rng.IntN(40)
		k1, k2 := rng.IntN(n1+1), rng.IntN(n2+1)
		got, want := fisherExact(k1, n1, k2, n2), refFisherP(k1, n1, k2, n2)
		if math.Abs(got-want) > 1e-9*math.Max(1, want) && math.Abs(got-want)/want > 1e-6 {
			t.Fatalf("case %d: %d/%d vs %d/%d: p=%v, reference %v", i, k1, n1, k2, n2, got, want)
		}
	}
}

// Known values: R's fisher.test(matrix(c(3,1,1,3), 2)) gives p = 0.4857
// (Fisher's tea-tasting table); 20 of 20 against 0 of 20 is 2/C(40,20).
func TestFisherExactKnown(t *testing.T) {
	if p := fisherExact(3, 4, 1, 4); math.Abs(p-0.4857) > 0.0001 {
		t.Errorf("tea tasting: p=%v, want 0.4857", p)
	}
	want := 2 / 137846528820.0
	if p := fisherExact(20, 20, 0, 20); math.Abs(p-want)/want > 1e-9 {
		t.Errorf("20/20 vs 0/20: p=%v, want %v", p, want)
	}
	if p := fisherExact(5, 10, 5, 10); p != 1 {
		t.Errorf("equal shares: p=%v, want 1", p)
	}
	if p := fisherExact(0, 0, 3, 5); p != 1 {
		t.Errorf("empty side: p=%v, want 1", p)
	}
}
