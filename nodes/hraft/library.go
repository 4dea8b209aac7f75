package hraft

import (
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/raft"

	"github.com/electbench/electbench/nodes"
)

// library is one server: raft.NewRaft, unchanged, over the transport, an
// InmemStore log, a StableStore over the host's stable storage (so its term
// and vote survive a crash and restart) and an in-memory snapshot store.
// Server ids and addresses are positions in decimal; every server is a
// voter.
type library struct {
	*settings
	host  nodes.Host
	trans *transport
	raft  *raft.Raft
	obs   *raft.Observer
	leads chan raft.Observation
	done  chan struct{} // closed by Stop: the observer's reader ends
	wg    sync.WaitGroup
}

func (l *library) Start(host nodes.Host) error {
	l.host = host
	peers := host.Peers()
	self := -1
	var servers []raft.Server
	for _, p := range peers {
		id := raft.ServerID(strconv.Itoa(int(p.ID)))
		servers = append(servers, raft.Server{Suffrage: raft.Voter, ID: id, Address: raft.ServerAddress(id)})
		if p.Rank == host.Self() {
			self = int(p.ID)
		}
	}
	if self < 0 {
		return fmt.Errorf("process %v is missing from its own peer list", host.Self())
	}
	id := raft.ServerID(strconv.Itoa(self))
	stable, err := newStableStore(host.Stable())
	if err != nil {
		return err
	}
	logs, err := bootLog(servers, stable)
	if err != nil {
		return err
	}
	c := l.config(id)
	c.Logger = hclog.New(&hclog.LoggerOptions{Name: "hashicorp-raft", Level: l.level, Output: host.Log()})
	l.trans = newTransport(host, raft.ServerAddress(id), l.election)
	r, err := raft.NewRaft(c, fsm{}, logs, stable, raft.NewInmemSnapshotStore(), l.trans)
	if err != nil {
		l.trans.close()
		return fmt.Errorf("raft.NewRaft: %w", err)
	}
	l.raft = r
	// A blocking observer: the library's main loop waits for the reader
	// rather than drop a change of leader.
	l.leads, l.done = make(chan raft.Observation, 16), make(chan struct{})
	l.obs = raft.NewObserver(l.leads, true, func(o *raft.Observation) bool {
		_, ok := o.Data.(raft.LeaderObservation)
		return ok
	})
	r.RegisterObserver(l.obs)
	l.wg.Add(1)
	go l.observe(peers)
	// A leader named before the observer was registered.
	if _, leader := r.LeaderWithID(); leader != "" {
		l.leads <- raft.Observation{Data: raft.LeaderObservation{LeaderID: leader}}
	}
	return nil
}

// observe decides every leader the library names: a server learns one
// when it wins its election or hears a leader's AppendEntries. A server
// that loses its leader (LeaderID "") keeps its last belief, as etcd-raft's
// processes do.
func (l *library) observe(peers []nodes.Peer) {
	defer l.wg.Done()
	var believed raft.ServerID
	for {
		select {
		case o := <-l.leads:
			lo := o.Data.(raft.LeaderObservation)
			if lo.LeaderID == "" || lo.LeaderID == believed {
				continue
			}
			p, err := strconv.Atoi(string(lo.LeaderID))
			if err != nil || p < 0 || p >= len(peers) {
				continue
			}
			believed = lo.LeaderID
			for _, q := range peers {
				if int(q.ID) == p {
					l.host.Decide(q.Rank)
				}
			}
		case <-l.done:
			return
		}
	}
}

func (l *library) Deliver(from nodes.PeerID, m nodes.Message) { l.trans.deliver(from, m) }

// Stop ends the calls in flight first, so that no goroutine of the library
// waits out an answer, then shuts the library down (its main loop may be
// handing the observer a last leader, which is still read), then the
// observer's reader.
func (l *library) Stop() {
	l.trans.close()
	if err := l.raft.Shutdown().Error(); err != nil {
		fmt.Fprintf(l.host.Log(), "hashicorp-raft: shutdown: %v\n", err)
	}
	l.raft.DeregisterObserver(l.obs)
	close(l.done)
	l.wg.Wait()
}

// bootLog is the in-memory log every server starts from, after a crash
// too: the configuration entry of all the servers at index 1 and term 1,
// as raft.BootstrapCluster writes it. BootstrapCluster itself refuses a
// server whose stable store remembers a term, and a restarted server's
// does: its log, in memory, is gone, so it starts from the same entry,
// as a server whose data directory kept only its term and vote.
func bootLog(servers []raft.Server, stable raft.StableStore) (*raft.InmemStore, error) {
	logs := raft.NewInmemStore()
	entry := &raft.Log{Index: 1, Term: 1, Type: raft.LogConfiguration,
		Data: raft.EncodeConfiguration(raft.Configuration{Servers: servers})}
	if err := logs.StoreLog(entry); err != nil {
		return nil, fmt.Errorf("the boot configuration: %w", err)
	}
	if t, err := stable.GetUint64(keyCurrentTerm); err != nil || t == 0 {
		if err := stable.SetUint64(keyCurrentTerm, 1); err != nil {
			return nil, err
		}
	}
	return logs, nil
}

// keyCurrentTerm is where the library keeps its term (raft.go's key).
var keyCurrentTerm = []byte("CurrentTerm")

// fsm is the state machine the log is applied to: the benchmark elects,
// it stores nothing.
type fsm struct{}

func (fsm) Apply(*raft.Log) any                 { return nil }
func (fsm) Snapshot() (raft.FSMSnapshot, error) { return snapshot{}, nil }
func (fsm) Restore(r io.ReadCloser) error       { return r.Close() }

type snapshot struct{}

func (snapshot) Persist(s raft.SnapshotSink) error { return s.Close() }
func (snapshot) Release()                          {}
