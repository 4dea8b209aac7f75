package etcdraft

import (
	crand "crypto/rand"
	"encoding/binary"
	"io"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// etcd's raft draws each randomized election timeout from a process-global
// source: globalRand.Intn, which calls crypto/rand.Int(crypto/rand.Reader, n)
// (raft.go, resetRandomizedElectionTimeout; the same in v3.6.0 and v3.7.0).
// Without a change to etcd's code, the only way to make those draws come from
// the trial's seed is the package variable crypto/rand.Reader, which
// crypto/rand.Int reads as passed: in Go 1.26 Int reads its argument with
// io.ReadFull and does not route it through crypto/internal/rand.CustomReader
// (as crypto/ecdh's GenerateKey does, which ignores a caller's reader unless
// GODEBUG=cryptocustomrand=1). crypto/rand.Read reads the variable too once
// it is not the default, as do pow.Mint (its workers' seeds) and
// ed25519.GenerateKey given crypto/rand.Reader. So:
//
//  1. At package initialisation, before main starts any goroutine, this
//     package replaces crypto/rand.Reader once and for all with dispatch,
//     keeping the system reader it found. The variable is never written
//     again, so no goroutine ever races on it.
//  2. Every call into etcd's raft in this process holds etcdMu and publishes
//     the stepping process's seeded source (nodes.Env.Rand) in active for its
//     duration (lockEtcd/unlockEtcd). Trials running in parallel take turns
//     inside etcd; their own work (queues, counting) stays parallel.
//  3. dispatch serves the seeded source only to a read made, on the call
//     stack, by etcd's (*lockedRand).Intn. Every other read — minting an
//     identity (pow), a handshake challenge (nodes/live), crypto/rand.Read
//     anywhere, TLS — goes to the system reader, even while some process is
//     inside etcd on another goroutine: the stack is the reader's own, so
//     another goroutine's read cannot pass for etcd's. When no process is
//     inside etcd (active is nil), dispatch does not even look at the stack.
//  4. etcd's Intn holds its own mutex around the read, and only this package
//     calls etcd, always under etcdMu: so a read that passes the stack test
//     comes from the goroutine holding etcdMu, which reads active safely.
//
// rand_test.go proves both halves: the same seed gives the same draws (and
// the CLI's rows are byte-identical across --parallel), and identity minting,
// handshake challenges and crypto/rand.Read never consume the seeded stream
// even while a process is inside etcd. If a future etcd renamed Intn, the
// stack test would stop matching and those tests would fail.

// etcdDraw is the function whose reads of crypto/rand.Reader are etcd's
// election-timeout draws.
const etcdDraw = "go.etcd.io/raft/v3.(*lockedRand).Intn"

var (
	etcdMu sync.Mutex                // held around every call into etcd's raft
	active atomic.Pointer[rand.Rand] // the stepping process's source while etcdMu is held; nil otherwise
	system io.Reader                 // crypto/rand.Reader as the process started
	// seeded counts the reads dispatch served from a seeded source (tests).
	seeded atomic.Int64
)

func init() {
	system = crand.Reader
	crand.Reader = dispatch{}
}

// dispatch is crypto/rand.Reader for the whole process (see above).
type dispatch struct{}

func (dispatch) Read(b []byte) (int, error) {
	if active.Load() == nil || !calledByEtcd() {
		return system.Read(b)
	}
	// Only the goroutine holding etcdMu gets here (point 4), so active
	// cannot change under it.
	src := active.Load()
	fill(src, b)
	seeded.Add(1)
	return len(b), nil
}

// fill writes the source's next bytes into b, eight per draw.
func fill(src *rand.Rand, b []byte) {
	var w [8]byte
	for len(b) > 0 {
		binary.LittleEndian.PutUint64(w[:], src.Uint64())
		b = b[copy(b, w[:]):]
	}
}

// calledByEtcd reports whether etcd's election-timeout draw is on the
// calling goroutine's stack (within a few frames: Intn → crypto/rand.Int →
// io.ReadFull → io.ReadAtLeast → Read).
func calledByEtcd() bool {
	var pcs [12]uintptr
	n := runtime.Callers(3, pcs[:])
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		if f.Function == etcdDraw {
			return true
		}
		if !more {
			return false
		}
	}
}

// lockEtcd enters etcd's raft on behalf of a process whose seeded source is
// src; unlockEtcd leaves. Every call into a RawNode happens between them.
func lockEtcd(src *rand.Rand) {
	if !deterministic {
		return
	}
	etcdMu.Lock()
	active.Store(src)
}

func unlockEtcd() {
	if !deterministic {
		return
	}
	active.Store(nil)
	etcdMu.Unlock()
}

// deterministic is false only in the benchmark that measures what the
// mechanism costs, set before any trial runs: etcd then draws from the
// system reader and calls into it are not serialized.
var deterministic = true
