package sim

import (
	"time"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// currentLeader is the process named by the latest decision, or the highest
// alive process when nobody has decided.
func (s *sim) currentLeader() int {
	if s.lastDecided >= 0 {
		if p, ok := s.position(s.res.Decisions.Get(int(s.lastDecided)).Leader); ok {
			return p
		}
	}
	return max(s.ranks.Extreme(1, s.alive), 0)
}

// position finds the process of rank r: by comparing in a small run,
// whose map would be most of a 5-process trial's fault handling (issue 42),
// in a map built at the first call otherwise.
func (s *sim) position(r nodes.Rank) (int, bool) {
	if s.n <= positionScan {
		// From the last, as the map holds the last of equal ranks (an
		// anonymous ring's).
		for i := s.n - 1; i >= 0; i-- {
			if s.ranks.CmpTo(i, &r) == 0 {
				return i, true
			}
		}
		return 0, false
	}
	if s.byRank == nil {
		s.byRank = make(map[nodes.Rank]int, s.n)
		for i := range s.n {
			s.byRank[s.ranks.At(i)] = i
		}
	}
	p, ok := s.byRank[r]
	return p, ok
}

// positionScan is the largest run whose ranks position compares one by one.
const positionScan = 16

// crash stops p now. undetected crashes are never suspected by any
// detector's schedule (heartbeats still notice the silence).
func (s *sim) crash(p int32, atStart, undetected bool) {
	if !s.alive[p] {
		return
	}
	wasLeader := s.currentLeader() == int(p)
	s.alive[p] = false
	s.res.Crashed(int(p), time.Duration(s.now), wasLeader)
	s.emitProc(trial.EvCrash, p)
	if !undetected {
		s.detectCrash(p, atStart)
	}
}
