package live

import (
	"math"
	"sync/atomic"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// transport carries a node's messages to and from its peers: it dials the
// links out, accepts the peers' links in, serves their frames, marks what
// it sends with the trial's epoch and knows the trial's roster. What it
// receives it posts to the node's goroutine as events (evMsg, evLink,
// evRefused, evProtocol); every method is called from that goroutine.
//
// netTransport is the real one (TCP through the harness's proxies, with
// the handshake and sealed frames); the tests' memTransport is its twin in
// memory, so that a node's logic runs without sockets.
type transport interface {
	// addr is the address peers dial, as the hello line gives it.
	addr() string
	// configure enters a trial: its roster (and epoch, and the policy a
	// peer's identity must satisfy) and this node's links out, kept from
	// the last trial where the address is the same.
	configure(r *roster, links []Link) error
	// epoch is the trial the transport carries (roster.epoch, or noEpoch
	// after a reset); position is the trial's position of the peer with
	// identity id, or -1.
	epoch() uint64
	position(id nodes.ID) int
	// settled says whether every link out has been up or refused once in
	// this trial, and how many of each.
	settled() (all bool, up, refused int)
	// start says the machine runs: messages are no longer held for it.
	start()
	// send writes m (or an external program's body) on the link to
	// position to. dropped says it did not leave (the link is down or the
	// write failed); err, that it could not be framed.
	send(to int, m nodes.Message, body []byte) (dropped bool, err error)
	// redial dials every link that is down now instead of waiting out its
	// backoff.
	redial()
	// counts are the frames sent and received and the connections shed
	// since the last reset.
	counts() linkCounts
	// reset ends the trial: no message is any trial's until the next
	// configure, and the counts restart. Links and connections stay.
	reset()
	// close releases every link, connection and listener and waits for
	// the transport's goroutines, once the node's done channel is closed.
	close()
}

// noEpoch is the epoch between a reset and the next configure: no message
// is any trial's then.
const noEpoch = math.MaxUint64

// roster is one trial as the transport sees it. It is never written once
// built: a configure or reset replaces it whole, so the connections'
// goroutines read it without a lock.
type roster struct {
	ranks  []nodes.Rank     // by position
	byID   map[nodes.ID]int // position by identity
	self   int
	epoch  uint64     // Config.Epoch, or noEpoch after a reset
	policy pow.Policy // what a peer's identity must satisfy (the handshakes')
	// vouched are the identity files the harness checked, by position
	// ("" where it vouches for none): Config.Vouched; vouchedCerts, the
	// ephemeral keys' certificates it checked: Config.VouchedCerts.
	vouched, vouchedCerts []string
}

// position is the position of the peer with identity id, or -1.
func (r *roster) position(id nodes.ID) int {
	if p, ok := r.byID[id]; ok && p != r.self {
		return p
	}
	return -1
}

// linkCounts are a transport's counts for the stats line.
type linkCounts struct {
	sent, recv [numFrameKinds]int64 // frames by kind
	shed       int64                // connections closed unread
}

// frameCounts counts frames by kind from any goroutine: the handshakes' and
// the links' as well as the node's.
type frameCounts struct {
	sent, recv [numFrameKinds]atomic.Int64
}

func (f *frameCounts) add(sent bool, k FrameKind) {
	if sent {
		f.sent[k].Add(1)
	} else {
		f.recv[k].Add(1)
	}
}

func (f *frameCounts) load(c *linkCounts) {
	for k := range f.sent {
		c.sent[k] = f.sent[k].Load()
		c.recv[k] = f.recv[k].Load()
	}
}

func (f *frameCounts) reset() {
	for k := range f.sent {
		f.sent[k].Store(0)
		f.recv[k].Store(0)
	}
}

// logDrop says whether the k-th message dropped on a link that is down is
// logged: the first, the tenth, the hundredth... (the count says how many
// went), so that a storm into a stopped peer (multicast at N = 128 sent
// tens of thousands) writes a few lines, not one a message. Every drop is
// counted (Stats, the dropped column) whatever is logged.
func logDrop(k int64) bool {
	for k >= 10 && k%10 == 0 {
		k /= 10
	}
	return k == 1
}
