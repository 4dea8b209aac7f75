// Package tally counts the votes of one ballot among a fixed set of voters:
// the majority rule that every quorum election in electbench shares (raft's
// VOTE, chubby's VOTE and RENEW_ACK, zookeeper's ACK). It is pure and small on
// purpose, so that it can be tested exhaustively against a deliberately
// simple reference (tally_test.go), like etcd-io/raft's quorum package.
//
// Voters are numbered 0..n-1. Only a voter's first vote on a ballot counts:
// a repeated or contradicting vote changes nothing, so a duplicated message
// cannot be counted twice.
package tally

import "fmt"

// Result is the state of a ballot.
type Result uint8

const (
	Pending Result = iota // neither outcome is settled yet
	Won                   // a majority granted
	Lost                  // so many refused that a majority can no longer grant
)

func (r Result) String() string {
	switch r {
	case Pending:
		return "pending"
	case Won:
		return "won"
	case Lost:
		return "lost"
	}
	return fmt.Sprintf("Result(%d)", uint8(r))
}

// Majority is the smallest number of voters out of n that wins: ⌊n/2⌋+1.
// Any two majorities of the same n voters share at least one voter, which is
// what makes "one vote per term" give at most one leader per term.
func Majority(n int) int { return n/2 + 1 }

// Tally is one ballot. The zero value is a ballot among zero voters; Reset
// sizes it. Reusing a Tally across ballots allocates nothing once it has
// grown to n.
type Tally struct {
	n       int
	voted   []uint64 // bitset of voters whose vote counted
	yes, no int
}

// Reset starts a new ballot among n voters.
func (t *Tally) Reset(n int) {
	w := (n + 63) / 64
	if cap(t.voted) < w {
		t.voted = make([]uint64, w)
	} else {
		t.voted = t.voted[:w]
		clear(t.voted)
	}
	t.n, t.yes, t.no = n, 0, 0
}

// Record counts voter's vote and reports whether it counted: false for a
// voter out of range or one that has already voted on this ballot.
func (t *Tally) Record(voter int, granted bool) bool {
	if voter < 0 || voter >= t.n {
		return false
	}
	word, bit := voter/64, uint64(1)<<(voter%64)
	if t.voted[word]&bit != 0 {
		return false
	}
	t.voted[word] |= bit
	if granted {
		t.yes++
	} else {
		t.no++
	}
	return true
}

// Voted reports whether voter's vote has been counted.
func (t *Tally) Voted(voter int) bool {
	return voter >= 0 && voter < t.n && t.voted[voter/64]&(1<<(voter%64)) != 0
}

// Granted and Refused are the counted votes of each sign.
func (t *Tally) Granted() int { return t.yes }
func (t *Tally) Refused() int { return t.no }

// Result is the ballot's state: Won once a majority granted, Lost once the
// voters still silent could no longer make a majority, Pending otherwise.
func (t *Tally) Result() Result {
	m := Majority(t.n)
	switch {
	case t.yes >= m:
		return Won
	case t.n-t.no < m:
		return Lost
	}
	return Pending
}
