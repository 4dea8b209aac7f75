package etcdraft

import (
	"context"
	"crypto/ecdh"
	"crypto/ed25519"
	crand "crypto/rand"
	"math/big"
	"math/rand/v2"
	"sync"
	"testing"

	"go.etcd.io/raft/v3"

	"github.com/electbench/electbench/nodes/live"
)

// The mechanism of rand.go, tested at its two edges: etcd's draw is served
// from the stepping process's seeded source, and nothing else ever is.

// twins returns two sources with the same seed: one to hand out, one to
// say what it should have produced.
func twins(seed uint64) (*rand.Rand, *rand.Rand) {
	return rand.New(rand.NewPCG(seed, 1)), rand.New(rand.NewPCG(seed, 1))
}

// newRawNode makes an etcd RawNode, which draws its first randomized
// election timeout while being made.
func newRawNode(t *testing.T) *raft.RawNode {
	t.Helper()
	rn, err := raft.NewRawNode(&raft.Config{ID: 1, ElectionTick: 10, HeartbeatTick: 1, Storage: raft.NewMemoryStorage(),
		MaxSizePerMsg: maxSizePerMsg, MaxInflightMsgs: 256, Logger: quiet{}})
	if err != nil {
		t.Fatal(err)
	}
	return rn
}

func TestEtcdDrawIsSeeded(t *testing.T) {
	src, twin := twins(7)
	before := seeded.Load()
	s := here()
	s.enter(src)
	newRawNode(t)
	s.leave()
	if seeded.Load() == before {
		t.Fatalf("etcd's election-timeout draw did not reach the seeded source: is %s still etcd's draw?", etcdDraw)
	}
	if src.Uint64() == twin.Uint64() {
		t.Fatal("the seeded source did not advance")
	}
	// Outside a step nothing is seeded: etcd draws from the system.
	before = seeded.Load()
	newRawNode(t)
	if seeded.Load() != before {
		t.Fatal("a draw outside a step was served from a seeded source")
	}
	// Nor is etcd's draw on another goroutine while this one is inside a
	// step: the slot is this goroutine's.
	src, twin = twins(8)
	s.enter(src)
	var wg sync.WaitGroup
	wg.Go(func() { newRawNode(t) })
	wg.Wait()
	s.leave()
	if seeded.Load() != before {
		t.Fatal("etcd's draw on another goroutine was served from this goroutine's seeded source")
	}
	if src.Uint64() != twin.Uint64() {
		t.Fatal("the seeded stream moved for another goroutine's draw")
	}
}

// drawLikeEtcd reads crypto/rand exactly as etcd's lockedRand.Intn does,
// from a caller that is not etcd: the stack test must refuse it.
func drawLikeEtcd() int64 {
	v, _ := crand.Int(crand.Reader, big.NewInt(1<<40))
	return v.Int64()
}

// While a process is inside etcd, every other read of crypto/rand — on the
// same goroutine or another: minting an identity as a live node does, a
// handshake challenge (crypto/rand.Read), key generation — gets the system
// reader, and the seeded stream does not move.
func TestOtherReadersNeverSeeded(t *testing.T) {
	src, twin := twins(3)
	before := seeded.Load()
	s := here()
	s.enter(src)
	readers := map[string]func() error{
		"crypto/rand.Read (handshake challenge)": func() error {
			b := make([]byte, live.ChallengeLen)
			_, err := crand.Read(b)
			return err
		},
		"crypto/rand.Int": func() error { drawLikeEtcd(); return nil },
		"ed25519.GenerateKey": func() error {
			_, _, err := ed25519.GenerateKey(crand.Reader)
			return err
		},
		"X25519 GenerateKey": func() error {
			_, err := ecdh.X25519().GenerateKey(crand.Reader)
			return err
		},
		"live.LoadOrMint (a node's identity)": func() error {
			_, err := live.LoadOrMint(context.Background(), t.TempDir(), live.IdentityParams(4))
			return err
		},
	}
	for name, read := range readers {
		if err := read(); err != nil { // on the goroutine inside the step
			t.Fatalf("%s: %v", name, err)
		}
		var wg sync.WaitGroup
		var err error
		wg.Go(func() { err = read() }) // and on another
		wg.Wait()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if seeded.Load() != before {
			t.Fatalf("%s read the seeded stream", name)
		}
	}
	s.leave()
	if src.Uint64() != twin.Uint64() {
		t.Fatal("the seeded stream moved")
	}
}

// Two readers of random bytes from the system are not the same bytes: the
// dispatcher's fallback is the real reader, not a fixed one.
func TestSystemReaderIsRandom(t *testing.T) {
	a, b := make([]byte, 32), make([]byte, 32)
	crand.Read(a)
	crand.Read(b)
	if string(a) == string(b) {
		t.Fatal("two reads of crypto/rand gave the same 32 bytes")
	}
}
