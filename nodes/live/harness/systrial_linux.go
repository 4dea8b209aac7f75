package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/check"
	"github.com/electbench/electbench/nodes/live/harness/system"
	serveralgs "github.com/electbench/electbench/nodes/servers"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/nodes/trial/timeline"
)

// A trial of a server algorithm (the system kind, docs/SERVERS.md) runs
// the servers' own processes (system.Cluster) instead of node processes:
// the one fault timeline acts on them through sysInjector (crash =
// SIGKILL, restart on the same data directory, pause = SIGSTOP/SIGCONT,
// cuts and loss as nftables rules), and what their members log of their
// leadership becomes the trial's events: a decision when a member names
// its leader, a phase (check.ServerRole) when it becomes candidate or
// leader of a term. Members stamp their lines themselves, so the events
// are sorted by time once the trial is over and emitted, into the record
// and the sink, as a node trial's are. No message is visible: the record
// counts none.

// systemServer is the server definition of a system algorithm, or nil.
func systemServer(a *nodes.Algorithm) *system.Server { return system.ByName(a.Name) }

// CheckSystem says why this host cannot run algorithm a's servers (their
// package missing, or not root), naming the package; nil for any other
// algorithm.
func CheckSystem(a *nodes.Algorithm) error {
	srv := systemServer(a)
	if srv == nil {
		return nil
	}
	if _, err := srv.Path(); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("%s runs its members as uids of their own and cuts links with nftables: it needs root (and Debian's %s)", a.Name, srv.Package)
	}
	return traversable(os.TempDir())
}

// traversable checks that every directory down to dir lets other users
// through: the members, each its own uid, run in a trial directory under
// it (and a later run finds a dead one's there, RemoveDeadDirs).
func traversable(dir string) error {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("the temporary directory: %w", err)
		}
		if fi.Mode().Perm()&0o001 == 0 {
			return fmt.Errorf("server members run as uids of their own and cannot enter %s (mode %v) on the way to the temporary directory %s: set TMPDIR to one they can reach, such as /tmp", d, fi.Mode().Perm(), dir)
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// sysTrial is one trial of a server algorithm.
type sysTrial struct {
	cfg     *trial.Config
	srv     *system.Server
	c       *system.Cluster
	n       int
	ranks   []nodes.Rank
	t0      time.Time
	tl      *timeline.Timeline
	rand    *rand.Rand
	actions chan func()
	alive   []bool
	paused  []bool
	leader  []int // by member: the leader it last logged, -1 for none
	latest  int   // the leader named by the latest decision, -1 before one
	events  []trial.Event
	effects map[int][][2]int // link effects in force: the links each holds
	// untraced are the schedule's entries the trace does not show.
	untraced []trial.FaultEvent
	errs     []string
	formed   time.Duration // when every member had logged the same leader
}

// runSystem runs one trial of cfg's server algorithm srv.
func runSystem(ctx context.Context, srv *system.Server, cfg *trial.Config, logf func(string, ...any)) (*Result, error) {
	if err := CheckSystem(cfg.Algorithm); err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	tl, err := timeline.New(cfg.Faults)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	n := cfg.Ranks.Len()
	st := &sysTrial{cfg: cfg, srv: srv, n: n, ranks: cfg.Ranks.Slice(), tl: tl, actions: make(chan func(), 64),
		alive: make([]bool, n), paused: make([]bool, n), leader: make([]int, n), latest: -1, effects: map[int][][2]int{}}
	for i := range st.leader {
		st.leader[i], st.alive[i] = system.NoLeader, true
	}
	if err := tl.Check(sysInjector{st}); err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	spec, err := systemSpec(cfg)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	dir, err := os.MkdirTemp("", TempPattern)
	if err != nil {
		return nil, fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, err)
	}
	defer os.RemoveAll(dir)
	// The directory names its owner, so that a later run or `electbench
	// clean` removes it if this one is killed (RemoveDeadDirs).
	if err := claimDir(dir); err != nil {
		return nil, fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, err)
	}
	if s, ok := cfg.Events.(trial.SetupSink); ok {
		s.Setup(trial.Setup{Ranks: cfg.Ranks, Unit: cfg.T()})
	}
	st.t0 = time.Now()
	for p := range n {
		st.add(trial.Event{Kind: trial.EvStart, P: int32(p)})
	}
	if st.c, err = system.Start(ctx, srv, spec, dir); err != nil {
		return nil, fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, err)
	}
	runErr := st.runAndClose(ctx)
	logf("%s: %d members formed in %v, ran to %v", srv.Name, n, st.formed.Round(time.Millisecond), st.now().Round(time.Millisecond))
	switch {
	case runErr != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("live: %w", runErr) // interrupted: nobody's failure
	case runErr != nil:
		return nil, fmt.Errorf("live: %w: %w", trial.ErrInfrastructure, runErr)
	}
	return st.finish(), trialErrors(ctx, st.errs)
}

// trialErrors is what the errors met during a system trial make of it:
// none, an interrupted trial (ctx ended: nobody's failure), or else the
// infrastructure's (trial.ErrInfrastructure: the trial is no result and
// --resume runs it again). Every one of them is the harness's: a member
// that would not restart, an nftables rule that could not be set or
// removed, a cluster that could not be closed. None says anything of the
// server's election, so none may stand in its row.
func trialErrors(ctx context.Context, errs []string) error {
	switch {
	case len(errs) == 0:
		return nil
	case ctx.Err() != nil:
		return errors.New("live: " + strings.Join(errs, "; "))
	}
	return fmt.Errorf("live: %w: %s", trial.ErrInfrastructure, strings.Join(errs, "; "))
}

// systemSpec is the cluster of cfg: its size, variant and parameters in
// the server's own units (whole milliseconds, ticks).
func systemSpec(cfg *trial.Config) (system.Spec, error) {
	params, err := serveralgs.Units(cfg.Algorithm.Name, nodes.Config{Variant: cfg.VariantName(), Params: cfg.Params, N: cfg.Ranks.Len(), T: cfg.T()})
	if err != nil {
		return system.Spec{}, err
	}
	return system.Spec{N: cfg.Ranks.Len(), Variant: cfg.VariantName(), Params: params, Delays: memberDelays(cfg)}, nil
}

// memberDelays are the delays of the members' inbound proxies
// (system.Delay): the run's latency model drawn once a member, as a node
// trial draws it once a link (linkLatency, from the same stream of the
// seed). A constant or normal model gives every member the same, so
// every byte between two members takes the model's one-way latency
// (± its deviation, as Toxiproxy's jitter), whichever of them dialed
// their connection; a model drawn per member delays a byte by the draw of
// the member its connection was dialed to.
func memberDelays(cfg *trial.Config) []system.Delay {
	if cfg.Latency == nil {
		return nil
	}
	src := rand.New(rand.NewPCG(cfg.Seed, streamLinks))
	out := make([]system.Delay, cfg.Ranks.Len())
	for i := range out {
		out[i].Latency, out[i].Jitter = linkLatency(cfg.Latency, src)
	}
	return out
}

// runAndClose runs the trial and closes the cluster whatever happens (a
// panic of the run included): its members killed, their directories and
// the run's nftables table removed.
func (st *sysTrial) runAndClose(ctx context.Context) error {
	defer func() {
		if err := st.c.Close(); err != nil {
			st.errs = append(st.errs, fmt.Sprintf("closing the cluster: %v", err))
		}
	}()
	return st.run(ctx)
}

// run waits for the cluster to form, then applies the faults and reads
// the members' observations until the deadline. An error is the
// infrastructure's: the cluster did not form.
func (st *sysTrial) run(ctx context.Context) error {
	form, cancel := context.WithTimeout(ctx, 30*time.Second+time.Duration(st.n)*time.Second)
	defer cancel()
	tl := st.tl // nil when the trial has no fault
	if tl != nil {
		tl.Begin(sysInjector{st})
	}
	if err := system.WaitFormed(form, st.c, st.observe); err != nil {
		return err
	}
	st.formed = st.now()
	if tl != nil {
		tl.Arm(true)
	}
	if tl != nil && st.latest >= 0 {
		// The cluster elected while it formed, before the faults waiting
		// for a leader were armed.
		st.tl.Decided()
	}
	stop := time.NewTimer(max(st.cfg.DeadlineOrDefault()-st.now(), 0))
	defer stop.Stop()
	for {
		select {
		case o := <-st.c.Observations():
			st.observe(o)
		case f := <-st.actions:
			f()
		case <-stop.C:
			return nil
		case <-ctx.Done():
			st.errs = append(st.errs, fmt.Sprintf("interrupted: %v", ctx.Err()))
			return nil
		}
	}
}

func (st *sysTrial) now() time.Duration { return time.Since(st.t0) }

// observe turns one observation into the trial's events.
func (st *sysTrial) observe(o system.Observation) {
	at := max(o.At.Sub(st.t0), 0)
	p := int32(o.Member)
	if role, ok := serverRoles[o.Role]; ok {
		st.add(trial.Event{At: at, Kind: trial.EvPhase, P: p, Phase: check.ServerRole(role, int64(o.Term))})
	}
	if o.Leader == system.LeaderUnchanged || o.Leader == st.leader[o.Member] {
		return
	}
	st.leader[o.Member] = o.Leader
	if o.Leader >= 0 {
		st.add(trial.Event{At: at, Kind: trial.EvDecide, P: p, Leader: st.ranks[o.Leader]})
		st.latest = o.Leader
		if st.tl != nil {
			st.tl.Decided()
		}
	}
}

// serverRoles are the checker's names of the roles servers log.
var serverRoles = map[system.Role]string{system.Follower: check.RoleFollower, system.PreCandidate: check.RolePreCandidate,
	system.Candidate: check.RoleCandidate, system.Leader: check.RoleLeader}

func (st *sysTrial) add(e trial.Event) { st.events = append(st.events, e) }

// finish emits the events in time order into the record and the sink.
func (st *sysTrial) finish() *Result {
	slices.SortStableFunc(st.events, func(a, b trial.Event) int { return cmp.Compare(a.At, b.At) })
	rec := trial.NewRecord(st.n, st.cfg.T(), st.cfg.DetectorOrDefault())
	want := trial.KindsOfSink(st.cfg.Events)
	leader := -1 // the latest decision's, for a crash's WasLeader
	for i := range st.events {
		e := &st.events[i]
		switch e.Kind {
		case trial.EvStart:
			rec.Initiated(e.At)
		case trial.EvDecide:
			rec.Decided(int(e.P), &e.Leader, e.At)
			leader = slices.Index(st.ranks, e.Leader)
		case trial.EvCrash:
			rec.Crashed(int(e.P), e.At, int(e.P) == leader)
		case trial.EvRestart:
			rec.Restarted(int(e.P))
		case trial.EvFault:
			rec.NoteFault(e.At, e.What)
		}
		if st.cfg.Events != nil && want.Has(e.Kind) {
			st.cfg.Events.Event(e)
		}
		rec.End = e.At
	}
	for _, f := range st.untraced {
		rec.NoteFault(f.At, f.What)
	}
	slices.SortStableFunc(rec.Faults, func(a, b trial.FaultEvent) int { return cmp.Compare(a.At, b.At) })
	rec.Events = int64(len(st.events))
	rec.Unseen = true
	rec.Alive = slices.Clone(st.alive)
	return &Result{Record: rec, Ranks: st.ranks}
}
