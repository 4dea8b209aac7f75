package live

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/pow"
)

// The control channel: one JSON object per line, harness → node on the
// node's stdin (Command), node → harness on its stdout (Report). Like
// Maelstrom's protocol, a line is self-contained, so either side can log or
// replay it.
//
// Harness → node:
//
//	{"type":"configure","config":{...}}   the run: algorithm, roster, links, detector
//	{"type":"start","t0":NS}              boot the machine; t0 is the run's start on the host's monotonic clock
//	{"type":"initiate"}                   Machine.Initiate
//	{"type":"suspect","peer":P}           Machine.Suspect(P): the harness is the perfect detector's oracle
//	{"type":"redial"}                     dial every link that is down now, without waiting out its
//	                                      backoff (a cut was healed, a restarted peer's proxies rewired)
//	{"type":"lose","fault":F,"peers":[..],"p":P,"seed":S}
//	                                      until healed, lose each message to these peers with
//	                                      probability P instead of writing it (a loss fault F on the
//	                                      links out of this node), drawn from a stream seeded by S
//	{"type":"slow","fault":F,"service":NS}
//	                                      until healed, hold each step (a delivery, timer, suspicion,
//	                                      initiation) NS nanoseconds, one after another (a slow fault F)
//	{"type":"heal","fault":F}             end fault F's loss or slowness on this node
//	{"type":"sync"}                       report the time on the node's clock (synced)
//	{"type":"sync","t0":NS}               before start: report the host's monotonic clock less NS (synced)
//	{"type":"stop"}                       report stats and exit
//	{"type":"reset"}                      report stats, end the trial, keep the process and its links for
//	                                      the next configure (a kept cluster's next trial)
//
// Node → harness:
//
//	{"type":"hello","addr":..,"identity":..,"proof":..,"eph":..,"cert":..,"pid":..,"kinds":[..],"timers":[..],"control":V}
//	                                                    listening, with the identity it will show, its
//	                                                    signature over the harness's challenge (ProveToHarness),
//	                                                    the ephemeral key it shows peers and its certificate,
//	                                                    its registry and the version of this channel it speaks
//	                                                    (ControlVersion)
//	{"type":"link","peer":P}                            the outgoing link to P is up or was refused, the
//	                                                    first time (before linked; the harness counts them)
//	{"type":"linked","up":K,"refused":R}                every outgoing link is up or was refused
//	{"type":"refused","peer":P,"side":..,"reason":..}  a handshake refused an identity (P = -1 when the
//	                                                    connection proved none: an anonymous refusal);
//	                                                    "by_peer":true when the peer refused this node;
//	                                                    "path":true when this node dialled its link to P
//	                                                    and met another identity (the path is to blame)
//	{"type":"protocol","peer":P,"reason":..}           a peer's link was closed for breaking the protocol
//	{"type":"step","t":NS,"ev":..,...}                 one event the machine handled, with its effects
//	{"type":"synced","t":NS}                           the answer to sync: every step line before it
//	                                                    is written, every later one is stamped no earlier
//	{"type":"maint","stats":{...}}                     cumulative counts, every heartbeat period
//	{"type":"stats","stats":{...}}                     final counts, the answer to stop
//	{"type":"error","error":..}                        the node cannot go on
//
// Kinds and timers are numbers. A step names message kinds and timers by
// their nodes.Kind and nodes.TimerID, not by name: the harness and the node
// are the same binary (`electbench node` re-executed), so their registries
// agree, and the harness counts by number with no lookup. It checks that
// they agree: hello lists the node's registry, the names of kinds 1, 2, ...
// ("kinds") and of timers 1, 2, ... ("timers"), and a node whose registry
// differs from the harness's is refused before it runs (CheckRegistry), so
// another binary is an error, never a miscount.
//
// A step is one trial event (trial.EventKind names): its "ev" is start,
// initiate, recv (with "kind" and "from"), timer (with "timer"), or suspect
// (with "peer"). "sent" lists every message the machine sent while handling
// it — {"to":P,"k":KIND,"b":BYTES}, with "d":true when it could not be
// written because no link to P was up (counted as dropped), "l":true when
// a loss fault lost it instead of writing it (counted as lost), the message's A
// and B as "a" and "v" when they are not zero, and, when the configuration
// asks for a trace, its Rank and Aux as "r" and "x" (nodes.Rank.String) when
// they are not zero — "armed" is the number of its timers left armed,
// "decide" the leaders it decided, in order — "da", when some decision
// came before a message of the step, says after how many of them each came
// (none: after them all) — and "phase" its phase for nodes.Phased
// machines. A received message's A and B are on the step as "a" and "v".
// Times are nanoseconds since t0.

// ControlVersion is the version of the control channel this build speaks,
// which hello reports: 2 added lose, slow and heal, and a step's lost
// messages ("l"); 3 hello's proof and refused's path; 4 hello's eph and
// cert and configure's vouched_certs. The harness refuses a node of
// another version, as it refuses one of another registry.
const ControlVersion = 4

// VouchedCert is one entry of Config.VouchedCerts: an ephemeral key and
// its certificate, base64 (as the hello's binary fields are) of the key
// followed by the certificate.
func VouchedCert(eph, cert []byte) string {
	return base64.StdEncoding.EncodeToString(append(append(make([]byte, 0, len(eph)+len(cert)), eph...), cert...))
}

// ParseVouchedCert is VouchedCert's inverse.
func ParseVouchedCert(s string) (eph, cert []byte, err error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, nil, fmt.Errorf("not base64: %w", err)
	}
	if len(b) != EphemeralLen+SignatureLen {
		return nil, nil, fmt.Errorf("%d bytes, not an ephemeral key and its certificate (%d)", len(b), EphemeralLen+SignatureLen)
	}
	return b[:EphemeralLen], b[EphemeralLen:], nil
}

// Command is one line from the harness.
type Command struct {
	Type   string  `json:"type"`
	Config *Config `json:"config,omitempty"`
	T0     int64   `json:"t0,omitempty"`
	// Restart, on "start", says the process was started again after a
	// crash: its machine's Now() reads the time since t0 from the first,
	// where at the run's start it reads 0.
	Restart bool `json:"restart,omitempty"`
	Peer    int  `json:"peer,omitempty"`
	// Fault names a loss or slow fault (lose, slow) for its heal: the
	// fault's index in the trial's timeline.
	Fault int `json:"fault,omitempty"`
	// lose: the peers whose links lose, the probability (per message) and
	// the seed of the draws (trial.LossSeed).
	Peers []int   `json:"peers,omitempty"`
	P     float64 `json:"p,omitempty"`
	Seed  uint64  `json:"seed,omitempty"`
	// slow: the extra service time of each step.
	Service time.Duration `json:"service,omitempty"`
}

// Config is everything a node needs to run its machine.
type Config struct {
	Algorithm string            `json:"algorithm"`
	Variant   string            `json:"variant"`
	Params    map[string]string `json:"params,omitempty"`
	// T is the unit the algorithm's parameters are written in ("2T"): the
	// configured link latency plus the runtime's processing allowance.
	T time.Duration `json:"t"`
	// D is the unit of "2D", the latency model's delay bound plus the same
	// allowance; zero (an older harness) means D = T.
	D    time.Duration `json:"d,omitempty"`
	Seed uint64        `json:"seed"` // the trial's seed: per-process sources as in the simulator
	// Epoch numbers the trials of a kept cluster's processes (reset): 0
	// for a process's first, then distinct and increasing. Frames are
	// marked with it, and a message of another epoch is never delivered.
	Epoch uint64 `json:"epoch,omitempty"`
	Self  int    `json:"self"` // this node's position
	// Ranks are every process's rank by position (ring order), as
	// nodes.Rank.String writes them.
	Ranks []string `json:"ranks"`
	// Links are this node's outgoing links: the peer's position and the
	// address to dial (its proxy).
	Links []Link `json:"links"`
	// SelfLatency delays a message a process sends to itself.
	SelfLatency time.Duration `json:"self_latency"`
	Detector    Detector      `json:"detector"`
	MinBits     int           `json:"min_bits"` // the least puzzle difficulty a peer's identity must have
	// Puzzle is the cluster's puzzle: a peer's identity of any other hash,
	// iteration count or Argon2 cost, or of fewer bits, is refused before
	// any hashing (pow.PolicyFor). Nil means this node's own identity's
	// puzzle at MinBits: every node of a run mints with the same one.
	Puzzle *pow.Params `json:"puzzle,omitempty"`
	// Vouched are, by position, the identity files the harness checked
	// itself (pow.Encode of the identity each process said hello with,
	// whose puzzle solves the cluster's and whose key signed the
	// harness's challenge; "" for a position it vouches for none). A
	// peer showing exactly one of them is not verified again: each proof
	// of work of a cluster is checked once, not once per link (Gate).
	// Sent with a process's first configure only: it keeps them.
	Vouched []string `json:"vouched,omitempty"`
	// VouchedCerts are, by position beside Vouched, the ephemeral keys
	// and their certificates the harness checked itself in each
	// process's hello (VouchedCert; "" where it vouches for none): a peer
	// showing exactly one under its position's id is not verified again
	// (Handshaker.checkCert). Any other key, a restarted peer's, is.
	VouchedCerts []string `json:"vouched_certs,omitempty"`
	// Trace asks for every sent message's Rank and Aux on the step lines:
	// the harness writes a trace of the run.
	Trace bool `json:"trace,omitempty"`
	// External defines the algorithm when it is a program in any language
	// (nodes/external): the node process registers it before use.
	External *nodes.ExternalDef `json:"external,omitempty"`
}

// Link is one outgoing link.
type Link struct {
	To   int    `json:"to"`
	Addr string `json:"addr"`
}

// Detector is the node-side failure detector. Kind "heartbeat" runs PING and
// PING_ACK every P and suspects a peer silent for longer than Tau; any other
// kind leaves suspicions to the harness's suspect commands.
type Detector struct {
	Kind string        `json:"kind,omitempty"`
	P    time.Duration `json:"p,omitempty"`
	Tau  time.Duration `json:"tau,omitempty"`
}

// Report is one line from a node. Fields are set by type.
type Report struct {
	Type string `json:"type"`
	// hello
	Addr     string   `json:"addr,omitempty"`
	Identity string   `json:"identity,omitempty"`
	PID      int      `json:"pid,omitempty"`
	Kinds    []string `json:"kinds,omitempty"`   // the registry's message kinds, from 1 (KindNames)
	Timers   []string `json:"timers,omitempty"`  // and its timers, from 1 (TimerNames)
	Control  int      `json:"control,omitempty"` // the control channel's version (ControlVersion)
	Proof    []byte   `json:"proof,omitempty"`   // the signature over the harness's challenge (ProveToHarness)
	// The ephemeral key the node shows its peers and its certificate
	// (certMessage), which the harness checks once and vouches for.
	Eph  []byte `json:"eph,omitempty"`
	Cert []byte `json:"cert,omitempty"`
	// linked
	Up      int `json:"up,omitempty"`
	Refused int `json:"refused,omitempty"`
	// refused (Peer) and step (Peer of a suspicion)
	Peer   int    `json:"peer,omitempty"`
	Side   string `json:"side,omitempty"`    // refused: "dial" or "accept", this node's side of the link
	ByPeer bool   `json:"by_peer,omitempty"` // refused: the peer refused this node's identity (else this node refused the peer's)
	Path   bool   `json:"path,omitempty"`    // refused: a dial met another identity than Peer's: the link's path is at fault
	Reason string `json:"reason,omitempty"`
	// step
	T    int64      `json:"t,omitempty"`
	Ev   string     `json:"ev,omitempty"`   // a trial.EventKind name: start, initiate, recv, timer, suspect
	Kind nodes.Kind `json:"kind,omitempty"` // recv
	// KindName and TimerName name an external program's kind (recv) or
	// timer (timer): those are numbered in each process's registry as
	// they are first seen, so the harness goes by name (ResolveExternal).
	KindName    string        `json:"kn,omitempty"`
	KindMaint   bool          `json:"km,omitempty"` // KindName's kind is maintenance traffic
	TimerName   string        `json:"tn,omitempty"`
	From        int           `json:"from,omitempty"`
	A           int64         `json:"a,omitempty"` // recv: the message's A and B (terms, votes)
	B           int64         `json:"v,omitempty"`
	Timer       nodes.TimerID `json:"timer,omitempty"`
	Sent        []Sent        `json:"sent,omitempty"`
	Armed       int           `json:"armed,omitempty"`
	Decide      []string      `json:"decide,omitempty"`
	DecideAfter []int         `json:"da,omitempty"` // how many of Sent came before each decision; nil: all
	Phase       string        `json:"phase,omitempty"`
	// maint, stats
	Stats *Stats `json:"stats,omitempty"`
	// error
	Error string `json:"error,omitempty"`
}

// Sent is one message a step sent.
type Sent struct {
	To      int        `json:"to"`
	Kind    nodes.Kind `json:"k"`
	Bytes   int        `json:"b"`
	A       int64      `json:"a,omitempty"` // the message's A and B: quorum algorithms' terms and votes
	B       int64      `json:"v,omitempty"`
	Rank    string     `json:"r,omitempty"` // the message's Rank and Aux, on a traced run (Config.Trace)
	Aux     string     `json:"x,omitempty"`
	Dropped bool       `json:"d,omitempty"`
	Lost    bool       `json:"l,omitempty"` // a loss fault lost it: never written
	// KindName and KindMaint name an external kind (Report.KindName).
	KindName  string `json:"kn,omitempty"`
	KindMaint bool   `json:"km,omitempty"`
}

// Stats are a node's counts since it started.
type Stats struct {
	FramesSent map[string]int64 `json:"frames_sent,omitempty"` // by frame kind, handshakes included
	FramesRecv map[string]int64 `json:"frames_recv,omitempty"`
	Sent       map[string]int64 `json:"sent,omitempty"`    // messages by kind, whether or not a link took them
	Recv       map[string]int64 `json:"recv,omitempty"`    // messages delivered to this node, by kind
	Dropped    map[string]int64 `json:"dropped,omitempty"` // sent with no link up: never written
	Bytes      int64            `json:"bytes,omitempty"`   // message body bytes sent (EncodedSize)
	BytesRecv  int64            `json:"bytes_recv,omitempty"`
	Fired      map[string]int64 `json:"fired,omitempty"` // timer expirations and suspicions, by name
	Refused    int64            `json:"refused,omitempty"`
	// Anonymous counts the refused connections that proved no identity
	// (a stranger, or someone claiming a peer's id without its key): they
	// are not blamed on any position.
	Anonymous int64 `json:"anonymous,omitempty"`
	// Shed counts connections closed because too many were in their
	// handshakes already: a new one closed unread, or an anonymous one
	// evicted to make room for it.
	Shed int64 `json:"shed,omitempty"`
	// ProtocolErrors counts links closed for breaking the protocol (a
	// malformed frame, a flood before start).
	ProtocolErrors int64 `json:"protocol_errors,omitempty"`
	// Rejected counts frames whose authentication failed (injected,
	// altered, replayed, reordered): each closed its link.
	Rejected int64 `json:"rejected,omitempty"`
	Steps    int64 `json:"steps,omitempty"`
	// Stale counts the messages dropped as another trial's: sent in a
	// kept cluster's last trial, delivered after it ended.
	Stale int64 `json:"stale,omitempty"`
}

// appendStep writes a step line by hand: it is the runtime's hot path, and
// every value in it is a number or a name that needs no escaping.
// appendExternalKind names an external program's kind on a step line
// (Report.KindName): each process numbers those kinds its own way.
func appendExternalKind(b []byte, k nodes.Kind) []byte {
	if !k.IsExternal() {
		return b
	}
	b = append(b, `,"kn":"`...) // names of A-Z a-z 0-9 _ -: nothing to escape
	b = append(b, k.String()...)
	b = append(b, '"')
	if !k.IsElection() {
		b = append(b, `,"km":true`...)
	}
	return b
}

func appendStep(b []byte, t time.Duration, s *step) []byte {
	b = append(b, `{"type":"step","t":`...)
	b = strconv.AppendInt(b, int64(t), 10)
	b = append(b, `,"ev":"`...)
	b = append(b, s.ev...)
	b = append(b, '"')
	switch s.ev {
	case "recv":
		b = append(b, `,"kind":`...)
		b = strconv.AppendUint(b, uint64(s.kind), 10)
		b = appendExternalKind(b, s.kind)
		b = append(b, `,"from":`...)
		b = strconv.AppendInt(b, int64(s.peer), 10)
		b = appendAB(b, s.a, s.b)
	case "timer":
		b = append(b, `,"timer":`...)
		b = strconv.AppendUint(b, uint64(s.timer), 10)
		if s.timer.IsExternal() {
			b = append(b, `,"tn":"`...) // names of A-Z a-z 0-9 _ -: nothing to escape
			b = append(b, s.timer.String()...)
			b = append(b, '"')
		}
	case "suspect":
		b = append(b, `,"peer":`...)
		b = strconv.AppendInt(b, int64(s.peer), 10)
	}
	if len(s.sent) > 0 {
		b = append(b, `,"sent":[`...)
		for i, m := range s.sent {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"to":`...)
			b = strconv.AppendInt(b, int64(m.To), 10)
			b = append(b, `,"k":`...)
			b = strconv.AppendUint(b, uint64(m.Kind), 10)
			b = appendExternalKind(b, m.Kind)
			b = append(b, `,"b":`...)
			b = strconv.AppendInt(b, int64(m.Bytes), 10)
			b = appendAB(b, m.A, m.B)
			if m.Rank != "" {
				b = append(b, `,"r":`...)
				b = strconv.AppendQuote(b, m.Rank) // digits, hex and '/': quoting is JSON's
			}
			if m.Aux != "" {
				b = append(b, `,"x":`...)
				b = strconv.AppendQuote(b, m.Aux)
			}
			if m.Dropped {
				b = append(b, `,"d":true`...)
			}
			if m.Lost {
				b = append(b, `,"l":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if s.armed > 0 {
		b = append(b, `,"armed":`...)
		b = strconv.AppendInt(b, int64(s.armed), 10)
	}
	if len(s.decide) > 0 {
		b = append(b, `,"decide":[`...)
		for i, d := range s.decide {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, d) // digits, hex and '/': quoting is JSON's
		}
		b = append(b, ']')
		if slices.ContainsFunc(s.decideAfter, func(k int) bool { return k < len(s.sent) }) {
			b = append(b, `,"da":[`...)
			for i, k := range s.decideAfter {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(k), 10)
			}
			b = append(b, ']')
		}
	}
	if s.phase != "" {
		q, _ := json.Marshal(s.phase)
		b = append(b, `,"phase":`...)
		b = append(b, q...)
	}
	return append(b, "}\n"...)
}

func appendAB(b []byte, x, y int64) []byte {
	if x != 0 {
		b = append(b, `,"a":`...)
		b = strconv.AppendInt(b, x, 10)
	}
	if y != 0 {
		b = append(b, `,"v":`...)
		b = strconv.AppendInt(b, y, 10)
	}
	return b
}

// step is the event the machine is handling and what it did.
type step struct {
	// at is when the node began handling the event: a step's line carries
	// it, so that a message is always stamped sent before it is stamped
	// delivered (a step that sends several messages can end after a peer
	// handled the first of them).
	at     time.Duration
	ev     string
	kind   nodes.Kind    // recv: the message's kind
	timer  nodes.TimerID // timer
	peer   int           // sender (recv) or suspect (suspect)
	a, b   int64         // the received message's A and B
	sent   []Sent
	decide []string
	// decideAfter is, for each decision, how many messages the step had
	// sent before it: the order the simulator's events keep.
	decideAfter []int
	armed       int
	phase       string
}

// KindNames is this binary's registry of message kinds as hello reports
// it: the name of nodes.Kind 1, 2, ... External programs' kinds, which
// each process numbers as it first sees them, are left out: step lines
// name them (Report.KindName).
func KindNames() []string {
	var out []string
	for k := nodes.Kind(1); int(k) < nodes.NumKinds(); k++ {
		if !k.IsExternal() {
			out = append(out, k.String())
		}
	}
	return out
}

// TimerNames is this binary's registry of timers: the name of
// nodes.TimerID 1, 2, ..., external programs' timers left out.
func TimerNames() []string {
	var out []string
	for t := nodes.TimerID(1); int(t) < nodes.NumTimers(); t++ {
		if !t.IsExternal() {
			out = append(out, t.String())
		}
	}
	return out
}

// ResolveExternal renumbers the external kinds and timers a step line
// names (appendStep writes their names) in this process's registry, registering them on
// first sight.
func ResolveExternal(r *Report) error {
	kind := func(name string, maint bool) (nodes.Kind, error) {
		class := nodes.ElectionClass
		if maint {
			class = nodes.MaintenanceClass
		}
		return nodes.ExternalKind(name, class)
	}
	var err error
	if r.KindName != "" {
		if r.Kind, err = kind(r.KindName, r.KindMaint); err != nil {
			return err
		}
	}
	if r.TimerName != "" {
		if r.Timer, err = nodes.ExternalTimer(r.TimerName); err != nil {
			return err
		}
	}
	for i := range r.Sent {
		if s := &r.Sent[i]; s.KindName != "" {
			if s.Kind, err = kind(s.KindName, s.KindMaint); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckRegistry reports whether a node's registry, as its hello listed it,
// numbers every kind and timer as this binary does, so that the numbers on
// its step lines mean the same here. A node of another binary (another
// build, or one with other algorithms linked in) is refused with the first
// difference.
func CheckRegistry(kinds, timers []string) error {
	for _, c := range []struct {
		what         string
		theirs, ours []string
	}{{"message kind", kinds, KindNames()}, {"timer", timers, TimerNames()}} {
		for i := range max(len(c.theirs), len(c.ours)) {
			var a, b string
			if i < len(c.theirs) {
				a = c.theirs[i]
			}
			if i < len(c.ours) {
				b = c.ours[i]
			}
			if a != b {
				return fmt.Errorf("its %s %d is %s, this harness's is %s: the node must be this very binary (%d %ss there, %d here)",
					c.what, i+1, orNone(a), orNone(b), len(c.theirs), c.what, len(c.ours))
			}
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "not registered"
	}
	return strconv.Quote(s)
}
