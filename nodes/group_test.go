package nodes

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Find answers as a linear scan does, for small ranks, ranks with an
// attribute and minted (wide) identities, present and absent, at every
// group size up to 9 (a reference implementation too simple to be wrong).
func TestGroupFindAsScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	draw := func() Rank {
		r := RankOf(uint64(rng.IntN(20)))
		switch rng.IntN(3) {
		case 1:
			r.Attr = uint64(rng.IntN(3))
		case 2:
			r.ID[0] = uint64(rng.IntN(2))
		}
		return r
	}
	for n := 0; n <= 9; n++ {
		for range 200 {
			var peers []Peer
			for len(peers) < n {
				r := draw()
				if !slices.ContainsFunc(peers, func(p Peer) bool { return p.Rank == r }) {
					peers = append(peers, Peer{Rank: r})
				}
			}
			slices.SortFunc(peers, func(a, b Peer) int { return a.Rank.Compare(b.Rank) })
			for i := range peers {
				peers[i].ID = PeerID(i)
			}
			g := Group{Peers: peers}
			for range 20 {
				r := draw()
				want := slices.IndexFunc(peers, func(p Peer) bool { return p.Rank == r })
				i, ok := g.Find(r)
				if ok != (want >= 0) || (ok && i != want) {
					t.Fatalf("N = %d, Find(%v) = %d, %v; the scan finds it at %d (-1: absent)", n, r, i, ok, want)
				}
				if j, ok := g.IndexOf(r, PeerID(want)); want >= 0 && (!ok || j != want) {
					t.Fatalf("IndexOf(%v, %d) = %d, %v", r, want, j, ok)
				}
				if want >= 0 {
					if _, ok := g.IndexOf(r, PeerID(want+1)); ok {
						t.Fatalf("IndexOf(%v) from the wrong link accepted", r)
					}
				}
			}
		}
	}
}

// IndexOf finds the process of a rank on its own link and no other, at
// sizes it scans and sizes it searches, with links numbered in any order
// (a runtime's peer ids need not follow the ranks).
func TestGroupIndexOfAnyLinks(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 2))
	for _, n := range []int{1, 2, 5, scanPeers, scanPeers + 1, 40} {
		for range 50 {
			peers := make([]Peer, n)
			for i, id := range rng.Perm(n) {
				peers[i] = Peer{ID: PeerID(id), Rank: RankOf(uint64(10 * (i + 1)))}
			}
			g := Group{Peers: peers}
			for range 20 {
				k, link := rng.IntN(n), PeerID(rng.IntN(n+1))
				r := peers[k].Rank
				if rng.IntN(4) == 0 {
					r = RankOf(uint64(10*k + 5)) // nobody's
				}
				want := r == peers[k].Rank && peers[k].ID == link
				if i, ok := g.IndexOf(r, link); ok != want || ok && i != k {
					t.Fatalf("N = %d: IndexOf(%v, %d) = %d, %v; the peer of that rank is %d on link %d", n, r, link, i, ok, k, peers[k].ID)
				}
			}
		}
	}
}
