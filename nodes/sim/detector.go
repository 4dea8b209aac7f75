package sim

import (
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// Kinds and timers the runtime itself uses.
var (
	kindPing    = trial.KindPing
	kindPingAck = trial.KindPingAck
	timerSusp   = trial.TimerSuspect
)

// heartbeats is the state of the heartbeat detector: per observer and peer,
// when the peer last answered and whether it is suspected. N×N: heartbeat
// runs are for clusters of up to a few thousand processes.
type heartbeats struct {
	lastHeard []int64
	suspected []bool
}

// onCrash applies the schedule-based detectors to a crash of c at time t.
// At crash@start exactly the initiators suspect at time 0 (before they are
// told to initiate); everyone else follows the model.
func (s *sim) detectCrash(c int32, atStart bool) {
	d := s.det
	if d.Kind == "heartbeat" {
		return // silence will be noticed by the pings
	}
	initiator := map[int32]bool{}
	if atStart {
		for _, p := range s.cfg.Initiators {
			initiator[int32(p)] = true
		}
	}
	for q := range int32(s.n) {
		if q == c || !s.alive[q] {
			continue
		}
		if d.Kind == "inaccurate" && d.Mu > 0 && s.detectRand().Float64() < d.Mu {
			continue // this process's detector misses the crash
		}
		if initiator[q] || atStart && s.cfg.Algorithm.StartsAll {
			s.scheduleSuspect(s.now, classControl, q, c)
		} else {
			s.scheduleSuspect(s.now+int64(d.D), classTimer, q, c)
		}
	}
}

// scheduleSuspect schedules a suspicion of process from by process to at
// `at`, counting it as pending for the settling rule.
func (s *sim) scheduleSuspect(at int64, class uint64, to, from int32) {
	s.suspecting++
	s.schedule(at, class, payload{kind: evSuspect, to: to, from: from})
}

// scheduleFalseSuspicions draws, per process, a Poisson process of rate λ
// over [0, W): each event makes it suspect a uniformly chosen other process.
func (s *sim) scheduleFalseSuspicions() {
	d := s.det
	if d.Kind != "inaccurate" || d.Lambda <= 0 {
		return
	}
	meanGap := float64(time.Second) / d.Lambda
	for p := range int32(s.n) {
		at := 0.0
		for {
			at += s.detectRand().ExpFloat64() * meanGap
			if at >= float64(d.Window) {
				break
			}
			q := int32(s.detectRand().IntN(s.n - 1))
			if q >= p {
				q++
			}
			s.scheduleSuspect(int64(at), classTimer, p, q)
		}
	}
}

// heartbeat runs one process's detector tick: check who has been silent too
// long, then ping everyone.
func (s *sim) heartbeat(p int32, incarnation uint32) {
	if !s.alive[p] || s.incarnation[p] != incarnation {
		return // crashed, or restarted with a tick chain of its own
	}
	n := int32(s.n)
	hb := s.hb
	for q := range n {
		i := p*n + q
		if q == p || hb.suspected[i] {
			continue
		}
		if s.now-hb.lastHeard[i] > int64(s.det.Tau) {
			hb.suspected[i] = true
			if s.slow != nil && s.slow.service[p] > 0 {
				// A slow process's suspicion is a step of its own: it
				// waits in its queue (slowed).
				s.scheduleSuspect(s.now, classTimer, p, q)
				continue
			}
			s.suspect(p, q)
		}
	}
	for q := range n {
		if q != p {
			s.send(p, nodes.PeerID(q), &nodes.Message{Kind: kindPing})
		}
	}
	s.scheduleBackground(s.now+int64(s.det.P), payload{kind: evHeartbeat, to: p, gen: incarnation})
}

// suspect delivers a detector verdict: observer p now suspects q.
func (s *sim) suspect(p, q int32) {
	if !s.alive[p] {
		return
	}
	s.res.Suspected(int(q), time.Duration(s.now))
	if s.want.Has(trial.EvSuspect) {
		s.emit(&trial.Event{At: time.Duration(s.now), Kind: trial.EvSuspect, P: p, Q: q})
	}
	s.machines.at(p).Suspect(s.enter(p), nodes.PeerID(q))
	s.leave()
	s.afterEvent(p)
}
