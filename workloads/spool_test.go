package workloads

import (
	"context"
	"crypto/sha256"
	"github.com/electbench/electbench/internal/heappeak"
	"hash"
	"runtime"
	"testing"
	"time"

	"github.com/electbench/electbench/reports"
)

// countingHash is a trace output that keeps nothing: it counts and hashes.
type countingHash struct {
	n int64
	h hash.Hash
}

func (c *countingHash) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return c.h.Write(p)
}

// A trace costs constant memory whatever its size: each trial's trace is
// spooled to disk as it runs and copied out in plan order (issue 22: a
// 9.1 GB trace cost 5.7 GB of memory at --parallel 1, 12.8 GB at 2). Here
// four trials of LCR with every process initiating on descending ids (the
// worst case, N(N+1)/2 messages) write tens of megabytes each, while the
// heap stays under a fixed bound far below one trial's trace; and the
// trace is the same bytes at --parallel 1 and 2.
func TestTraceCostsConstantMemory(t *testing.T) {
	// The collector at its default goal, as the user's GOGC leaves it
	// (gcfloor): the heap then holds what the run keeps and garbage up to
	// as much again, which the bound is about; the executor's raised goal
	// lets garbage grow toward a constant 256 MiB instead (20 MiB here
	// under the race detector).
	t.Setenv("GOGC", "100")
	s := spec(t, "lcr", "600", "descending", "all", "1ms", 4)
	var sums [2][32]byte
	for i, par := range []int{1, 2} {
		out := &countingHash{h: sha256.New()}
		// Collect what earlier tests left before sampling starts: the
		// peak is this run's.
		runtime.GC()
		stop := heappeak.Start(5 * time.Millisecond)
		err := (&Executor{Parallel: par, Trace: out}).Execute(context.Background(), s.Plan(), func(reports.Row) error { return nil })
		peak := stop()
		if err != nil {
			t.Fatal(err)
		}
		perTrial := out.n / 4
		const bound = 12 << 20
		if perTrial < 2*bound {
			t.Fatalf("each trial's trace is %d bytes: too small for the bound of %d to prove anything", perTrial, bound)
		}
		if p := peak; p > bound {
			t.Errorf("--parallel %d: the heap reached %d MiB writing a %d MiB trace; the bound is %d MiB", par, p>>20, out.n>>20, bound>>20)
		}
		t.Logf("--parallel %d: trace %d MiB, peak heap %d MiB", par, out.n>>20, peak>>20)
		copy(sums[i][:], out.h.Sum(nil))
	}
	if sums[0] != sums[1] {
		t.Error("the trace differs between --parallel 1 and 2")
	}
}
