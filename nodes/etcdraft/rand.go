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
//  2. Every call into etcd's raft publishes the stepping process's seeded
//     source (nodes.Env.Rand) for its duration in a slot of the calling
//     goroutine's own (enter/leave). A machine finds its goroutine's slot
//     once, when it starts (here, by the goroutine's identity: goid), and
//     is stepped on that goroutine ever after: the simulator runs a trial on one
//     goroutine, and a live node runs its machine on its event loop.
//     Trials running in parallel do not wait for each other: each
//     goroutine's slot is its own.
//  3. dispatch serves the seeded source only to a read made, on the call
//     stack, by etcd's (*lockedRand).Intn, and only from the slot of the
//     reading goroutine. Every other read — minting an identity (pow), a
//     handshake challenge (nodes/live), crypto/rand.Read anywhere, TLS —
//     goes to the system reader, even while some process is inside etcd on
//     another goroutine: the stack is the reader's own, so another
//     goroutine's read cannot pass for etcd's. An etcd draw on a goroutine
//     that is not inside a step gets the system reader too.
//  4. etcd's Intn holds its own mutex around the read, so draws of trials
//     in parallel take turns there; the order of those turns does not
//     matter, since each reads its own goroutine's slot. A slot is written
//     and read only by its goroutine.
//
// rand_test.go proves both halves: the same seed gives the same draws (and
// the CLI's rows are byte-identical across --parallel), and identity minting,
// handshake challenges and crypto/rand.Read never consume the seeded stream
// even while a process is inside etcd. If a future etcd renamed Intn, the
// stack test would stop matching and those tests would fail. The slots
// cost one small entry for every goroutine that ever started an etcd-raft
// machine (a run's workers, a live node's loop).

// etcdDraw is the function whose reads of crypto/rand.Reader are etcd's
// election-timeout draws.
const etcdDraw = "go.etcd.io/raft/v3.(*lockedRand).Intn"

var (
	slots  sync.Map  // goroutine identity (goid) → *slot
	system io.Reader // crypto/rand.Reader as the process started
	// seeded counts the reads dispatch served from a seeded source (tests).
	seeded atomic.Int64
)

// slot is a goroutine's: the source of the process it is stepping inside
// etcd, nil outside (point 2).
type slot struct{ src *rand.Rand }

func init() {
	system = crand.Reader
	crand.Reader = dispatch{}
}

// dispatch is crypto/rand.Reader for the whole process (see above).
type dispatch struct{}

func (dispatch) Read(b []byte) (int, error) {
	if !calledByEtcd() {
		return system.Read(b)
	}
	s, ok := slots.Load(goid())
	if !ok || s.(*slot).src == nil {
		return system.Read(b)
	}
	fill(s.(*slot).src, b)
	seeded.Add(1)
	return len(b), nil
}

// here returns the calling goroutine's slot, made on its first call.
func here() *slot {
	id := goid()
	if s, ok := slots.Load(id); ok {
		return s.(*slot)
	}
	s := &slot{}
	slots.Store(id, s)
	return s
}

// goidFromStack is the calling goroutine's id, read from the first line of
// its stack trace ("goroutine 17 [running]:"): goid where the goroutine's
// own record cannot be read (goid_other.go). runtime.Stack formats the
// whole stack to print its first line, some microseconds a call.
func goidFromStack() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = b[len("goroutine "):]
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
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
// calling goroutine's stack within unwound frames of its own: Read,
// io.ReadAtLeast, crypto/rand.Int (io.ReadFull inlined into it), then
// Intn, the fourth, or fewer where the compiler inlines more.
func calledByEtcd() bool {
	var pcs [unwound]uintptr
	for _, pc := range pcs[:returnPCs(&pcs)] {
		if drawAt(pc) {
			return true
		}
	}
	return false
}

// unwound is how many frames calledByEtcd looks at above dispatch.Read.
const unwound = 6

// drawPCs caches, by return address, whether a frame there is etcd's
// draw (inlined frames included): naming the frames of every read
// (runtime.CallersFrames) cost a sixth of an etcd-raft trial, while the
// addresses such reads return to are few (issue 42).
var drawPCs struct {
	sync.RWMutex
	m map[uintptr]bool
}

// drawAt reports whether any frame at return address pc, inlined ones
// included, is etcdDraw.
func drawAt(pc uintptr) bool {
	drawPCs.RLock()
	draw, ok := drawPCs.m[pc]
	drawPCs.RUnlock()
	if ok {
		return draw
	}
	frames := runtime.CallersFrames([]uintptr{pc})
	for more := true; more && !draw; {
		var f runtime.Frame
		f, more = frames.Next()
		draw = f.Function == etcdDraw
	}
	drawPCs.Lock()
	if drawPCs.m == nil {
		drawPCs.m = map[uintptr]bool{}
	}
	drawPCs.m[pc] = draw
	drawPCs.Unlock()
	return draw
}

// enter publishes src in s, the calling goroutine's slot, for a call into
// etcd on behalf of the process whose seeded source it is; leave ends it.
func (s *slot) enter(src *rand.Rand) {
	if deterministic {
		s.src = src
	}
}

func (s *slot) leave() { s.src = nil }

// deterministic is false only in the benchmark that measures what the
// mechanism costs, set before any trial runs: etcd then draws from the
// system reader.
var deterministic = true
