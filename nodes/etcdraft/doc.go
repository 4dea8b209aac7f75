// Package etcdraft registers etcd-raft: etcd's Raft (go.etcd.io/raft/v3,
// v3.6.0, the version etcd v3.6 links) run unchanged behind nodes.Machine,
// so that the Raft inside etcd, and so inside Kubernetes control planes, is
// measured with the same instrument as the textbook algorithms.
//
// Each process is a RawNode on an in-memory Storage (storage.go: etcd's
// MemoryStorage without its lock) that starts from a snapshot
// naming every process a voter (index and term 1; see Start for why not
// RawNode.Bootstrap); raft ids are 1..N in ascending rank order. A timer
// (parameter tick, default 2T) calls Tick; a received message is Step;
// after every event the Ready loop runs
// with synchronous writes — the hard state and entries go to the storage
// and, where the runtime keeps state across a restart (nodes.StableStore),
// there too, before any message leaves; then Advance. Leadership is read
// from the soft state the Readys carry and decided when etcd names a new
// leader. With the default election-tick 10 and heartbeat-tick 1 (etcd's
// ratio), an election timeout is drawn from [20T, 40T), the window of
// nodes/quorum's raft.
//
// Messages keep etcd's names: MsgVote, MsgVoteResp, MsgPreVote and
// MsgPreVoteResp are election messages; MsgApp, MsgHeartbeat and their
// responses are maintenance. The body of each is etcd's protobuf encoding of
// raftpb.Message, so the bytes counted are the bytes etcd would send; A
// carries its term and B a vote's grant, which is how the runtimes read terms,
// split votes and failover (nodes.Quorum; the leader's kinds are MsgHeartbeat
// and MsgApp, hence Quorum.LeaderAlso). A pre-vote is not a ballot: a term in
// which only pre-votes were sent was never entered.
//
// Determinism: etcd draws its randomized election timeouts from crypto/rand
// through a process-global source; rand.go routes exactly those draws to the
// stepping process's seeded source and explains why that is safe.
package etcdraft
