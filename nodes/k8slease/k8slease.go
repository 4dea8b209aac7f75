package k8slease

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/electbench/electbench/nodes"
)

// The kinds are the API server's verbs for a Lease as the library uses
// them: GET (read the lease), CREATE (POST: the first candidate makes it)
// and UPDATE (PUT: renew or take over, with the resourceVersion read), each
// answered by its Resp, whose A is the HTTP status. Every one of them is
// polling (a candidate's try every retry period, the holder's renewal), so
// they count by kind only (messages_by_kind), as heartbeats do.
var (
	kindGet        = nodes.RegisterKind("GET", nodes.MaintenanceClass)
	kindGetResp    = nodes.RegisterKind("GETResp", nodes.MaintenanceClass)
	kindCreate     = nodes.RegisterKind("CREATE", nodes.MaintenanceClass)
	kindCreateResp = nodes.RegisterKind("CREATEResp", nodes.MaintenanceClass)
	kindUpdate     = nodes.RegisterKind("UPDATE", nodes.MaintenanceClass)
	kindUpdateResp = nodes.RegisterKind("UPDATEResp", nodes.MaintenanceClass)
)

// liveOnly is why k8s-lease cannot be simulated.
const liveOnly = "client-go's leader election runs its own goroutines and reads time.Now and its timers, with jitter from the global math/rand: it cannot be stepped deterministically"

func init() {
	nodes.Register(nodes.Algorithm{
		Name:     "k8s-lease",
		Family:   "lease",
		Summary:  "Kubernetes leader election (k8s.io/client-go/tools/leaderelection v0.37.2, unchanged, with a LeaseLock): the lowest-ranked process is the Lease store, the others candidates; live only",
		Topology: nodes.Complete,
		Params:   params,
		New:      newLibrary,
		LiveOnly: liveOnly,
		// Any candidate may win the lease: the checker asks for one live
		// leader that every live process decided (the store decides the
		// holder it records).
		ElectsAny: true,
		// Candidates poll the store for ever: the trial runs to its
		// deadline.
		Restless: true,
		// A candidate that lost the first race learns the holder at its
		// next try, [RP, 2.2RP) later: the default deadline (1.3 s at
		// N = 3, T = 1ms) is shorter than the default RP's 2.2 (4.4 s).
		MinDeadline: minDeadline,
	})
}

// The library's defaults (kube-controller-manager's and every operator's
// that keeps them).
var params = []nodes.Param{
	{Name: "lease-duration", Default: "15s", Summary: "LeaderElectionConfig.LeaseDuration (duration, whole seconds: the Lease's spec.leaseDurationSeconds): a candidate takes over once it has seen no renewal for this long on its own clock"},
	{Name: "renew-deadline", Default: "10s", Summary: "LeaderElectionConfig.RenewDeadline (duration): the holder gives up leading when it has not renewed for this long; also each request's timeout"},
	{Name: "retry-period", Default: "2s", Summary: "LeaderElectionConfig.RetryPeriod (duration): the holder renews every retry period; a candidate tries every [RP, 2.2RP) (JitterFactor 1.2)"},
	{Name: "log-level", Default: "off", Summary: "the library's own log (klog, through logr) to the node's log: off, or a verbosity from 0 (its Info and Error lines) to 10"},
}

// settings are one run's configuration, shared by its processes.
type settings struct {
	lease, renew, retry time.Duration
	verbosity           int // -1: the library's log is off
}

func newLibrary(cfg nodes.Config) (func() nodes.Machine, error) {
	s, err := settingsOf(cfg)
	if err != nil {
		return nil, err
	}
	return func() nodes.Machine { return nodes.Hosted(&library{settings: s}) }, nil
}

func settingsOf(cfg nodes.Config) (*settings, error) {
	if err := nodes.CheckParams("k8s-lease", cfg.Params, params); err != nil {
		return nil, err
	}
	if cfg.Variant != "" && cfg.Variant != "default" {
		return nil, fmt.Errorf("algorithm k8s-lease has no variant %q", cfg.Variant)
	}
	if cfg.N < 2 {
		return nil, fmt.Errorf("k8s-lease needs at least 2 processes (the store and a candidate), not %d", cfg.N)
	}
	s := new(settings)
	for _, d := range []struct {
		name string
		to   *time.Duration
	}{{"lease-duration", &s.lease}, {"renew-deadline", &s.renew}, {"retry-period", &s.retry}} {
		var err error
		if *d.to, err = cfg.Duration(d.name, defaultOf(d.name)); err != nil {
			return nil, err
		}
	}
	// The library writes int(LeaseDuration/time.Second) into the Lease,
	// and a candidate waits what the Lease says: 1.5s would be read as 1s,
	// and anything under a second as a lease that has always expired.
	if s.lease%time.Second != 0 {
		return nil, fmt.Errorf("parameter lease-duration: %v is not a whole number of seconds (the Lease's spec.leaseDurationSeconds, which candidates wait, is an integer)", s.lease)
	}
	level := strings.TrimSpace(cfg.Params["log-level"])
	s.verbosity = -1
	if level != "" && level != "off" {
		v, err := strconv.Atoi(level)
		if err != nil || v < 0 || v > 10 {
			return nil, fmt.Errorf("parameter log-level: %q is not off or a verbosity from 0 to 10", level)
		}
		s.verbosity = v
	}
	// The library's own validation, as NewLeaderElector applies it: its
	// errors are the user's bad input, reported before anything runs.
	lock := &resourcelock.LeaseLock{LockConfig: resourcelock.ResourceLockConfig{Identity: "validate"}}
	if _, err := leaderelection.NewLeaderElector(s.config(lock, leaderelection.LeaderCallbacks{
		OnStartedLeading: func(context.Context) {}, OnStoppedLeading: func() {}})); err != nil {
		return nil, fmt.Errorf("k8s-lease: leaderelection.NewLeaderElector: %w", err)
	}
	return s, nil
}

func defaultOf(name string) string {
	for _, p := range params {
		if p.Name == name {
			return p.Default
		}
	}
	panic("k8s-lease: no parameter " + name)
}

// config is the library's configuration for one candidate: the run's
// timing, the lock and the callbacks. ReleaseOnCancel stays off, as in
// kube-controller-manager: a holder that stops leaves the lease to expire.
func (s *settings) config(lock resourcelock.Interface, cb leaderelection.LeaderCallbacks) leaderelection.LeaderElectionConfig {
	return leaderelection.LeaderElectionConfig{
		Lock:          lock,
		LeaseDuration: s.lease,
		RenewDeadline: s.renew,
		RetryPeriod:   s.retry,
		Callbacks:     cb,
		Name:          leaseName,
	}
}

// The one Lease every candidate contends for.
const (
	leaseName      = "electbench"
	leaseNamespace = "default"
)

// minDeadline is three retry periods: a candidate's next try comes within
// 2.2 of them (JitterFactor 1.2) and its request's round trip within the
// rest. Parameters that do not parse leave it to the default: the run
// refuses them when planned.
func minDeadline(cfg nodes.Config) time.Duration {
	s, err := settingsOf(cfg)
	if err != nil {
		return 0
	}
	return 3 * s.retry
}
