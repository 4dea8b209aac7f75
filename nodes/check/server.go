package check

import (
	"strconv"
	"strings"
	"time"
)

// A server run from outside (the system kind, docs/SERVERS.md) shows the
// checker no message: its members' own log lines say when each became
// candidate or leader of a term. The live harness reports them as phases
// (trial.EvPhase) written by ServerRole, and the checker reads its terms
// from them as it reads a library's from ballots and leader messages: a
// candidate opens its term, a leader wins it. Its votes are not visible,
// so the minority-leader check does not apply; two leaders of one term
// still break safety.

// serverPhase prefixes a server role's phase, which no machine's phase
// starts with.
const serverPhase = "server:"

// Server roles the checker reads terms and disruptions from.
const (
	RoleFollower     = "follower"
	RolePreCandidate = "pre-candidate"
	RoleCandidate    = "candidate"
	RoleLeader       = "leader"
)

// ServerRole is the phase a server member is reported in once it logs
// that it took role in term.
func ServerRole(role string, term int64) string {
	return serverPhase + role + "@" + strconv.FormatInt(term, 10)
}

// parseServerRole reads ServerRole's phase back.
func parseServerRole(phase string) (role string, term int64, ok bool) {
	rest, ok := strings.CutPrefix(phase, serverPhase)
	if !ok {
		return "", 0, false
	}
	role, t, ok := strings.Cut(rest, "@")
	if !ok {
		return "", 0, false
	}
	term, err := strconv.ParseInt(t, 10, 64)
	return role, term, err == nil
}

// serverRole notes a server member's role in a term; false when phase is
// not a server role (or the checker watches no quorum algorithm).
func (c *Checker) serverRole(at time.Duration, p int, phase string) bool {
	w := c.quorum
	role, term, ok := parseServerRole(phase)
	if w == nil || !ok {
		return false
	}
	w.disrupt.advance(at)
	switch role {
	case RoleCandidate:
		if w.terms.find(term) == nil {
			w.terms.add(term, at)
		}
	case RoleLeader:
		c.actsAsLeader(at, p, term, false)
	}
	w.disrupt.serverRole(at, p, role, term)
	return true
}

// serverRole is the disruption watch's reading of a server member's
// role, as sent reads a library's messages: a candidacy is a Ballot (an
// election, the term seen), a pre-candidacy a Campaign message (no term
// entered), a leadership the first Leader message of its term. Nothing
// else of a tenure is visible: it lasts until its leader's next role (no
// silence, nodes.Quorum.Heartbeat unset), and a leader that becomes
// follower of a higher term was deposed. Whether it still reached a
// majority then cannot be read off deliveries nobody sees: its followers
// that still followed it (decided it, did not campaign) count as reached.
func (d *disruptWatch) serverRole(at time.Duration, p int, role string, term int64) {
	switch role {
	case RoleCandidate:
		d.sawTerm(term)
		d.ballotIn(p, term)
		fallthrough
	case RolePreCandidate:
		d.end(at, p, gaveUp)
		d.campaign(p)
		d.byVote[p] = false
	case RoleLeader:
		d.sawTerm(term)
		// A leader won its term's election even when it logged no
		// candidacy for it: a ZooKeeper server's vote belongs to no epoch
		// (looking is a pre-candidacy), and it learns the epoch it leads
		// only once a quorum has taken it. An etcd leader logged its
		// candidacy in the term, which this counts once, not again.
		d.ballotIn(p, term)
		d.lead(at, p, term)
	case RoleFollower:
		d.sawTerm(term)
		// A follower of a term above its leader's has been reached by a
		// newer candidate (etcd logs it as it takes the request, before
		// its vote, which is not visible): as a vote for a newer term,
		// that ends its following until it decides (granted). A paused
		// leader logs nothing, so this is where its followers are seen
		// to leave it.
		if l := d.follows[p]; l >= 0 && l != p && !d.campaigning[p] {
			if lt := d.leading[l]; lt != nil && term > lt.term {
				d.campaign(p)
				d.byVote[p] = true
			}
		}
		t := d.leading[p]
		switch {
		case t == nil:
		case term > t.term:
			for q, f := range d.follows {
				if q != p && f == p {
					t.reach[q] = at
				}
			}
			d.end(at, p, deposed)
		default:
			d.end(at, p, gaveUp) // check-quorum: it lost its quorum
		}
	}
}
