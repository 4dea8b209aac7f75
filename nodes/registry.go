package nodes

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Algorithm describes one registered election algorithm.
type Algorithm struct {
	Name     string   // stable name used on the command line and in every row
	Family   string   // "ring", "bully", "quorum"; "mutex" for mutual exclusion (Mutex set)
	Summary  string   // one line for `electbench list algorithms`
	Topology Topology // the links every process is given
	// StartsAll means every process initiates from Start (lcr, hs); the
	// workload's choice of initiators does not apply.
	StartsAll bool
	// BoundedDelay means the algorithm's safety assumes that every message
	// arrives within the delay bound D its timeouts are written in
	// (Garcia-Molina's bully, multicast election): a trial in which one
	// took longer (trial.Record.Overruns) ran outside the algorithm's
	// model, and a wrong leader there is the network's doing, not the
	// algorithm's. A live trial the host pushed outside it runs again
	// (trial.OutsideModel, trial.MaxReruns).
	BoundedDelay bool
	Variants     []Variant // selectable variants; the first is the default
	Params       []Param   // settable parameters with their defaults
	// OpenParams means the algorithm takes any parameter, as typed: an
	// external program's (nodes/external), which interprets them itself.
	OpenParams bool
	// External, for a program in any language, is its definition: a live
	// node process defines the algorithm again from it (DefineExternal).
	External *ExternalDef
	// New validates cfg once per run and returns a constructor for one
	// process's machine. Errors name the parameter or variant at fault.
	New func(cfg Config) (func() Machine, error)
	// Theory gives the reference figures of ALGORITHMS.md for a
	// configuration, where a closed form exists. May be nil.
	Theory func(in TheoryInput) Theory
	// AllUpTo, when set, limits the algorithm's place in "all" (a
	// scenario's `algorithms: all`, `--algo all`, the default sweep) to
	// clusters of at most this many processes; named, it runs at any size.
	// For an algorithm whose cost grows much faster than the others'
	// (etcd-raft: each process's membership costs O(N²) to build).
	AllUpTo int
	// Restless marks an algorithm that never comes to rest without being a
	// quorum algorithm (a token that circulates whether anyone wants it
	// or not): its run lasts until the deadline, when a message of it is
	// always in flight, as a quorum algorithm's heartbeat is (NeverRests).
	Restless bool
	// MinDeadline, when set, is the least deadline a fault-free trial at
	// cfg's parameters needs for every process to learn its leader: a
	// library whose clocks are its own, set in seconds rather than in T
	// (k8s-lease's candidates look at the store once a retry period). The
	// default deadline is raised to it (trial.Config.DeadlineOrDefault);
	// a deadline the scenario or --deadline sets is kept.
	MinDeadline func(cfg Config) time.Duration
	// Candidacy, for an algorithm without terms, is the kind a process
	// sends, to every process it asks, in the step in which it starts an
	// election (bully's and multicast's ELECTION): the checker counts an
	// election per step that sends it (ALGORITHMS.md, "Disruption"). Zero
	// when the wire does not delimit an algorithm's elections (a ring's
	// ELECTION is also forwarded).
	Candidacy Kind
	// Quorum, when set, marks a majority-vote algorithm that runs until the
	// deadline (heartbeats, lease renewals) and says how to read its
	// elections off the wire. Nil for algorithms that terminate.
	Quorum *Quorum
	// Model is the system model the algorithm assumes, which `electbench
	// list algorithms` shows: asynchronous (the zero value), synchronous
	// rounds or anonymous. Only asynchronous algorithms are in "all" (InAll).
	Model Model
	// ElectsLowest means the rightful leader is the live process of lowest
	// rank, not highest: the lecture's synchronous algorithms (time-slice,
	// variable-speeds) elect the smallest id, the one that starts first or
	// travels fastest. The checker judges such a run by the lowest rank.
	ElectsLowest bool
	// ElectsAny means any one live process is a rightful leader: a
	// randomized election on an anonymous ring (itai-rodeh) picks one by
	// chance. The checker then asks only for one leader, alive, that every
	// live process decided.
	ElectsAny bool
	// Mutex, when set, marks a mutual-exclusion algorithm (nodes/mutex):
	// its processes request a critical section rather than elect, and
	// the runtime judges the run by the section's entries and exits,
	// read from their phases (Phased: PhaseReleased, PhaseWanted,
	// PhaseHeld). Nil for election algorithms. "all" (--algo all, a
	// scenario's `algorithms: all`, the default sweep) means every
	// election algorithm: mutual exclusion is chosen by name or by
	// "mutex" (every algorithm of the family).
	Mutex *Mutex
	// LiveOnly, when set, says why the algorithm runs only in the live
	// runtime: a library that owns its goroutines and clocks, or a server
	// run from outside, cannot be stepped deterministically. The simulator
	// refuses it with this reason (trial.Capabilities.CheckAlgorithm), and
	// "all" leaves it out: it runs when named.
	LiveOnly string
}

// Mutex describes a mutual-exclusion algorithm to the runtime: which of
// its message kinds a process spends to enter the critical section and
// which to leave it, so that messages per entry and per exit are the
// lecture's figures (ALGORITHMS.md, "Mutual exclusion"), and what its
// checker may demand.
type Mutex struct {
	Entry []Kind // kinds sent to enter (REQUEST, GRANT, REPLY, TOKEN): counted per entry
	Exit  []Kind // kinds sent to leave (RELEASE): counted per exit
	// Ordered means the algorithm promises to grant requests in their
	// happened-before order (Ricart–Agrawala's Lamport timestamps): the
	// checker then verifies that no request enters before one that
	// happened before it.
	Ordered bool
	// VotingSet, when set, is K for a configuration: how many other
	// processes a process asks (Maekawa's voting set, itself excluded).
	VotingSet func(cfg Config) int
}

// MutexWorkload are the parameters every mutual-exclusion algorithm
// takes for its request workload (ALGORITHMS.md, "The request
// workload"): who requests is the run's initiators; these say how often
// and for how long. They describe the workload, not the algorithm, so
// reference figures apply whatever their values (HasDefaultParams skips
// them).
var MutexWorkload = []Param{
	{Name: "requests", Default: "1", Summary: "requests each initiator makes, one after another (a count)"},
	{Name: "hold", Default: "1T", Summary: "how long a process stays in the critical section (duration)"},
	{Name: "think", Default: "0", Summary: "how long a process waits after leaving the section before its next request (duration)"},
	{Name: "stagger", Default: "0", Summary: "the first request of the process of rank order r (0 for the lowest) comes r×stagger after it is told to request (duration)"},
}

// IsMutex reports whether a is a mutual-exclusion algorithm.
func (a *Algorithm) IsMutex() bool { return a.Mutex != nil }

// The phases of a mutual-exclusion process (a Phased machine whose
// Algorithm.Mutex is set): the runtime reads them after every event, and
// the checker judges the critical section by them.
const (
	PhaseReleased = "Released" // outside the section, not asking
	PhaseWanted   = "Wanted"   // asked to enter, waiting
	PhaseHeld     = "Held"     // in the critical section
)

// Model is a system model an algorithm assumes (ALGORITHMS.md, "The
// reference model" and the ring lecture's synchronous and anonymous rings).
type Model uint8

const (
	// ModelAsync: messages take any finite time; processes have distinct
	// ids used only by comparison. Every algorithm before the ring
	// lecture's synchronous ones.
	ModelAsync Model = iota
	// ModelRounds: synchronous rounds of one T each (the reference model's
	// constant latency), and ids that are small positive whole numbers
	// used as numbers (time-slice, variable-speeds): under any other
	// latency the algorithm runs outside its model.
	ModelRounds
	// ModelAnonymous: every process the same, a ring of known size, and a
	// random source (itai-rodeh); ids are not used.
	ModelAnonymous
)

func (m Model) String() string {
	switch m {
	case ModelAsync:
		return "asynchronous"
	case ModelRounds:
		return "synchronous-rounds"
	case ModelAnonymous:
		return "anonymous"
	}
	return "unknown-model"
}

// InAll reports whether a is among "all" (a scenario's `algorithms: all`,
// `--algo all`, the default sweep): every election algorithm of the
// asynchronous model. Synchronous-round algorithms need small ids and a
// time that grows with them, which "all"'s arrangements (minted ids, ten
// million processes) do not give, so they run when named.
func (a *Algorithm) InAll() bool {
	return !a.IsMutex() && a.Model == ModelAsync && a.LiveOnly == ""
}

// Runtimes names the runtimes that run a: "sim,live", or "live" (LiveOnly).
func (a *Algorithm) Runtimes() string {
	if a.LiveOnly != "" {
		return "live"
	}
	return "sim,live"
}

// ElectionNames returns the names of the algorithms "all" means (InAll),
// sorted.
func ElectionNames() []string {
	var names []string
	for _, a := range Algorithms() {
		if a.InAll() {
			names = append(names, a.Name)
		}
	}
	return names
}

// MutexNames returns the registered mutual-exclusion algorithms' names,
// sorted: what "mutex" means where algorithms are chosen.
func MutexNames() []string {
	var names []string
	for _, a := range Algorithms() {
		if a.IsMutex() {
			names = append(names, a.Name)
		}
	}
	return names
}

// Quorum describes a majority-vote algorithm (chubby, zookeeper, raft) to
// the runtime. Such a run never comes to rest: it is live when, by the
// deadline, a live leader is known by a majority of the cluster, and its
// turnaround is the time until that first holds (Raft's "downtime" after a
// leader crash). Terms and epochs are the algorithm's own notions, so the
// runtime derives them from the messages it carries rather than from the
// algorithm's claims. Every kind named here carries the term or epoch in
// Message.A; a term in which Ballot messages were sent but nobody sent a
// Leader message is a split vote.
type Quorum struct {
	Ballot Kind // a candidate asks for votes in term A: REQUEST_VOTE
	Grant  Kind // a vote for the receiver in term A when B != 0: VOTE
	Leader Kind // sent only by the leader of term A, from the instant it won: HEARTBEAT
	// LeaderAlso lists further kinds sent only by the leader of term A, for
	// an algorithm whose leader speaks first in more than one kind
	// (etcd-raft's leader opens its term with MsgApp, then MsgHeartbeat).
	LeaderAlso []Kind
	// Campaign lists kinds, besides Ballot, that only a process that is
	// not leading sends (etcd-raft's MsgPreVote, whose term is the one it
	// would campaign for, not its own): a leader that sends one has
	// stepped down. Their term is not the sender's and is read from none.
	Campaign []Kind
	// Heartbeat gives the longest interval between a leader's Leader
	// (or LeaderAlso) messages while it leads (raft: its heartbeat); nil
	// when a leader does not repeat them (zookeeper's COMMIT). The
	// checker's disruption figures take a leader silent for two of them
	// as no longer leading (ALGORITHMS.md, "Disruption").
	Heartbeat func(cfg Config) (time.Duration, error)
	// Lease, when set, gives the master lease of a configuration: a Leader
	// message sent at time t claims mastership over [t, t+lease] in the
	// harness clock, and no two processes' claims may overlap.
	Lease func(cfg Config) (time.Duration, error)
	// Steady gives the period of a configuration's steady traffic: once a
	// leader is settled, each process sends about one message, or fires one
	// timer, per Steady (raft: the leader's heartbeat to every follower; a
	// ticking process: its tick). The cost estimates of a plan use it (a
	// quorum algorithm runs to its deadline); nil: the heartbeat of a
	// default configuration is unknown and the estimate assumes 5T.
	Steady func(cfg Config) (time.Duration, error)
	// Settle gives the settling window of a configuration, which lets a
	// trial end before its deadline once its election is over for good
	// (trial.Settling): when every live process, a majority of the
	// cluster, believes one live leader, no fault is pending or in force,
	// no message can outlast the delay bound D, and for a whole window
	// nothing of the election has happened (no election message sent, no
	// election timer expired, no decision, no initiation, suspicion or
	// fault), no election message is ever sent again, no election timer
	// ever expires and no process changes its mind. The window must
	// outlast the longest election timer the algorithm arms and any chain
	// of messages and maintenance steps between two election events. It
	// is 0 when the configuration does not assure a steady state (raft
	// with heartbeat + D ≥ tmin: a follower may time out under a living
	// leader); the trial then runs to its deadline, as it does when
	// Settle is nil.
	Settle func(cfg Config) (time.Duration, error)
}

// IsCampaign reports whether k is a kind only a process that is not leading
// sends: Ballot or one of Campaign.
func (q *Quorum) IsCampaign(k Kind) bool {
	return k == q.Ballot || slices.Contains(q.Campaign, k)
}

// IsLeader reports whether k is a kind only the leader of a term sends.
func (q *Quorum) IsLeader(k Kind) bool {
	return k == q.Leader || slices.Contains(q.LeaderAlso, k)
}

// Variant is a named variation of an algorithm.
type Variant struct {
	Name    string
	Summary string
}

// Param documents one settable parameter. Defaults are written as on the
// command line: durations as "5ms", "2T" (multiples of the mean one-way
// latency T) or "2D" (multiples of the latency model's delay bound D).
type Param struct {
	Name    string
	Default string
	Summary string
}

// Config is what an algorithm's constructor is given.
type Config struct {
	Variant string        // one of Algorithm.Variants (the default's name when unset)
	Params  Params        // user-set parameters; the algorithm applies defaults
	N       int           // number of processes
	T       time.Duration // mean one-way latency, the unit of "2T"
	// D is the latency model's delay bound, the unit of "2D": the largest
	// one-way delay (trial.Latency.Bound). Zero means D = T, as under the
	// reference model's constant latency.
	D time.Duration
	// Batch, when set, asks the constructor to say whether it puts the
	// run's N machines in one allocation (Batch, Batched); nil elsewhere.
	Batch *Batch
}

// Bound is D, the unit of "2D": Config.D, or T when D is unset.
func (c Config) Bound() time.Duration {
	if c.D > 0 {
		return c.D
	}
	return c.T
}

// Params holds user-set parameters by name, as typed.
type Params map[string]string

// Duration reads parameter name as a duration, accepting multiples of T
// ("2T", "0.5T") and of D ("2D") as well as Go durations ("5ms"); def is
// used when unset.
func (c Config) Duration(name, def string) (time.Duration, error) {
	s, ok := c.Params[name]
	if !ok {
		s = def
	}
	d, err := ParseDuration(s, c.T, c.Bound())
	if err != nil {
		return 0, fmt.Errorf("parameter %s: %w", name, err)
	}
	return d, nil
}

// ParseDuration reads "5ms", "1.5s", a multiple of the mean latency T such
// as "2T" or "0.5T", or a multiple of the delay bound D such as "2D". D is
// zero where no latency model gives one (a scenario's timeline): "2D" is
// then refused rather than read as something else.
func ParseDuration(s string, T, D time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	for _, u := range [...]struct {
		suffix string
		unit   time.Duration
	}{{"T", T}, {"D", D}} {
		num, ok := strings.CutSuffix(s, u.suffix)
		if !ok {
			continue
		}
		if u.unit <= 0 {
			return 0, fmt.Errorf("%q: the delay bound D is not known here; write a duration (5ms) or a multiple of T (2T)", s)
		}
		if num == "" {
			return u.unit, nil
		}
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e9 {
			return 0, fmt.Errorf("%q is not a multiple of %s such as 2%s", s, u.suffix, u.suffix)
		}
		return time.Duration(f * float64(u.unit)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (5ms) or a multiple of T or D (2T, 2D)", s)
	}
	return d, nil
}

// TheoryInput describes a configuration for the reference figures.
type TheoryInput struct {
	Variant    string
	N          int
	Ranks      Ranks // by position: ring order, successor = next position
	Initiators []int // positions that initiate at time 0, ascending
	// Crashed lists positions crashed before the run starts (crash@start);
	// at time 0 exactly the initiators' detectors suspect them.
	Crashed []int
	// Faulty is set when any other fault is scheduled (a crash during the
	// run, a partition, an inaccurate detector): the figures do not apply.
	Faulty bool
	// Params are the run's parameters. The runtimes ask for figures only
	// when every parameter has its default (see Algorithm.HasDefaultParams),
	// since ALGORITHMS.md's figures are for the defaults.
	Params Params
}

// Theory holds reference figures; a zero field means "no closed form".
type Theory struct {
	Messages   int64   // exact total message count
	Bound      int64   // upper bound on the total message count
	Turnaround float64 // exact turnaround in units of T
}

var registry = map[string]*Algorithm{}

// Register adds an algorithm. It panics on a duplicate or incomplete entry:
// registration happens in init functions and a mistake there is a bug.
func Register(a Algorithm) {
	switch {
	case a.Name == "" || strings.ContainsAny(a.Name, "/, "):
		panic(fmt.Sprintf("nodes: invalid algorithm name %q", a.Name))
	case registry[a.Name] != nil:
		panic("nodes: algorithm registered twice: " + a.Name)
	case a.New == nil || a.Topology == 0:
		panic("nodes: algorithm " + a.Name + " lacks New or Topology")
	}
	if len(a.Variants) == 0 {
		a.Variants = []Variant{{Name: "default", Summary: "as specified"}}
	}
	registry[a.Name] = &a
}

// Algorithms returns every registered algorithm, sorted by name.
func Algorithms() []*Algorithm {
	out := make([]*Algorithm, 0, len(registry))
	for _, a := range registry {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b *Algorithm) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Names returns the registered algorithm names, sorted.
func Names() []string {
	var names []string
	for _, a := range Algorithms() {
		names = append(names, a.Name)
	}
	return names
}

// Lookup finds an algorithm by "name" or "name/variant" and returns it with
// the chosen variant (the default when none is named).
func Lookup(spec string) (*Algorithm, string, error) {
	name, variant, _ := strings.Cut(strings.TrimSpace(spec), "/")
	a := registry[name]
	if a == nil {
		return nil, "", fmt.Errorf("unknown algorithm %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	known := make([]string, len(a.Variants))
	for i, v := range a.Variants {
		known[i] = v.Name
	}
	variant, err := CheckVariant(name, variant, known...)
	if err != nil {
		return nil, "", err
	}
	return a, variant, nil
}

// CheckVariant returns the variant selected, the first of known (the
// default) when unset, or an error naming the known ones. Constructors
// check their Config.Variant with it.
func CheckVariant(name, variant string, known ...string) (string, error) {
	if variant == "" {
		return known[0], nil
	}
	if !slices.Contains(known, variant) {
		return "", fmt.Errorf("algorithm %s has no variant %q (known: %s)", name, variant, strings.Join(known, ", "))
	}
	return variant, nil
}

// CheckParams reports the first parameter in p that a does not declare.
func (a *Algorithm) CheckParams(p Params) error {
	if a.OpenParams {
		return nil
	}
	return CheckParams(a.Name, p, a.Params)
}

// CheckParams reports the first parameter in p (in name order) that is not
// among declared, naming the algorithm and the parameters it knows.
// Algorithms' constructors call it so that they are safe to call on their
// own; the runtimes check through Algorithm.CheckParams before that.
func CheckParams(name string, p Params, declared []Param) error {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.ContainsFunc(declared, func(q Param) bool { return q.Name == k }) {
			var known []string
			for _, q := range declared {
				known = append(known, q.Name)
			}
			if len(known) == 0 {
				return fmt.Errorf("algorithm %s takes no parameters, got %q", name, k)
			}
			return fmt.Errorf("algorithm %s has no parameter %q (known: %s)", name, k, strings.Join(known, ", "))
		}
	}
	return nil
}

// HasDefaultParams reports whether every parameter in p equals its declared
// default, comparing durations by value ("2T" and "2.0T" are the same, and
// so are "2T" and "2D" under constant latency, where D = T).
func (a *Algorithm) HasDefaultParams(p Params, T, D time.Duration) bool {
	for _, q := range a.Params {
		v, ok := p[q.Name]
		if !ok || v == q.Default || a.IsMutex() && slices.ContainsFunc(MutexWorkload, func(w Param) bool { return w.Name == q.Name }) {
			continue
		}
		dv, err1 := ParseDuration(v, T, D)
		dd, err2 := ParseDuration(q.Default, T, D)
		if err1 != nil || err2 != nil || dv != dd {
			return false
		}
	}
	return true
}

// ExternalDef describes an algorithm written in any language
// (docs/NODE-PROTOCOL.md) as a scenario file defines it.
type ExternalDef struct {
	Name        string
	Command     []string // the node program and its arguments
	Dir         string   // where relative paths in Command are resolved
	Topology    string   // ring, bidirectional-ring or complete
	Theory      string   // a built-in algorithm whose figures apply; "" for none
	Maintenance []string // message types that are not election messages
	// StepTimeout bounds each step in wall time; 0 for the default.
	StepTimeout time.Duration
}

// externalDefiner turns a definition into a registered algorithm; set by
// nodes/external, which runs programs, so that packages that may not run
// processes (workloads) can still define one from a scenario.
var externalDefiner func(ExternalDef) (*Algorithm, error)

// SetExternalDefiner installs what DefineExternal calls; nodes/external
// does so in its init function.
func SetExternalDefiner(f func(ExternalDef) (*Algorithm, error)) { externalDefiner = f }

// DefineExternal registers the algorithm d describes (or finds it, if the
// same definition was registered before) and returns it.
func DefineExternal(d ExternalDef) (*Algorithm, error) {
	if externalDefiner == nil {
		return nil, fmt.Errorf("algorithm %s: this program cannot run external node programs (nodes/external is not linked in)", d.Name)
	}
	return externalDefiner(d)
}

// NeverRests reports whether a's runs never come to rest by themselves:
// a quorum algorithm's (heartbeats, lease renewals, watches) unless the
// settling rule ends them, a Restless one's always. A message in flight
// at the deadline is then the algorithm's, not a message lost.
func (a *Algorithm) NeverRests() bool { return a.Quorum != nil || a.Restless }

// ErrInfrastructure is wrapped by an error that is the infrastructure's,
// not the algorithm's (trial.ErrInfrastructure is this value): an
// algorithm package that runs something (a node program) says so with it.
var ErrInfrastructure = errors.New("infrastructure failure")
