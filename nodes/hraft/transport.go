package hraft

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/go-msgpack/v2/codec"
	"github.com/hashicorp/raft"

	"github.com/electbench/electbench/nodes"
)

// transport is raft.Transport (and raft.WithPreVote) over a nodes.Host: each
// RPC is a Message of its kind whose Body is an 8-byte call number and the
// library's msgpack encoding of the request (as its NetTransport writes
// it); the answer comes back as the kind's answer with the same number.
// Addresses are positions, in decimal. The pipeline is off
// (ErrPipelineReplicationNotSupported: the library falls back to one call at a time).
//
// A call whose request or answer was lost (a fault) fails after timeout, as
// NetTransport's calls fail when their connection's deadline passes; the
// library then backs off and tries again, or counts the vote as not given.
type transport struct {
	host     nodes.Host
	self     raft.ServerAddress
	timeout  time.Duration
	consumer chan raft.RPC
	stop     chan struct{} // closed by close: calls fail, serving ends
	wg       sync.WaitGroup
	pending  nodes.Pending[[]byte] // calls waiting for their answer, by number
}

var errUnsupported = errors.New("hashicorp-raft: the transport carries no snapshots")

func newTransport(host nodes.Host, self raft.ServerAddress, timeout time.Duration) *transport {
	return &transport{host: host, self: self, timeout: timeout, consumer: make(chan raft.RPC),
		stop: make(chan struct{})}
}

// answers gives each request kind its answer's kind.
var answers = map[nodes.Kind]nodes.Kind{
	kindAppend: kindAppendResp, kindHeartbeat: kindHeartResp, kindVote: kindVoteResp,
	kindPreVote: kindPreVoteResp, kindTimeoutNow: kindTimeoutResp,
}

func (t *transport) Consumer() <-chan raft.RPC          { return t.consumer }
func (t *transport) LocalAddr() raft.ServerAddress      { return t.self }
func (t *transport) SetHeartbeatHandler(func(raft.RPC)) {} // heartbeats go to the consumer, as InmemTransport's do
func (t *transport) EncodePeer(_ raft.ServerID, a raft.ServerAddress) []byte {
	return []byte(a)
}
func (t *transport) DecodePeer(b []byte) raft.ServerAddress { return raft.ServerAddress(b) }

func (t *transport) AppendEntriesPipeline(raft.ServerID, raft.ServerAddress) (raft.AppendPipeline, error) {
	return nil, raft.ErrPipelineReplicationNotSupported
}

func (t *transport) InstallSnapshot(raft.ServerID, raft.ServerAddress, *raft.InstallSnapshotRequest, *raft.InstallSnapshotResponse, io.Reader) error {
	return errUnsupported
}

func (t *transport) AppendEntries(_ raft.ServerID, to raft.ServerAddress, req *raft.AppendEntriesRequest, resp *raft.AppendEntriesResponse) error {
	k := kindAppend
	if len(req.Entries) == 0 {
		k = kindHeartbeat
	}
	return t.call(to, k, req.Term, req, resp)
}

func (t *transport) RequestVote(_ raft.ServerID, to raft.ServerAddress, req *raft.RequestVoteRequest, resp *raft.RequestVoteResponse) error {
	return t.call(to, kindVote, req.Term, req, resp)
}

func (t *transport) RequestPreVote(_ raft.ServerID, to raft.ServerAddress, req *raft.RequestPreVoteRequest, resp *raft.RequestPreVoteResponse) error {
	return t.call(to, kindPreVote, req.Term, req, resp)
}

func (t *transport) TimeoutNow(_ raft.ServerID, to raft.ServerAddress, req *raft.TimeoutNowRequest, resp *raft.TimeoutNowResponse) error {
	return t.call(to, kindTimeoutNow, 0, req, resp) // it carries no term
}

// call sends req as kind k with term (Message.A, which the checker reads)
// and decodes the answer into resp.
func (t *transport) call(to raft.ServerAddress, k nodes.Kind, term uint64, req, resp any) error {
	peer, err := strconv.Atoi(string(to))
	if err != nil {
		return fmt.Errorf("hashicorp-raft: address %q is not a position: %w", to, err)
	}
	id, answer := t.pending.Open()
	defer t.pending.Close(id)
	body, err := encode(id, req)
	if err != nil {
		return fmt.Errorf("hashicorp-raft: %s to %s: %w", k, to, err)
	}
	t.host.Send(nodes.PeerID(peer), nodes.Message{Kind: k, A: int64(term), Body: string(body)})
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	select {
	case b := <-answer:
		return decode(b, resp)
	case <-timer.C:
		return fmt.Errorf("hashicorp-raft: %s to %s: no answer within %v", k, to, t.timeout)
	case <-t.stop:
		return raft.ErrTransportShutdown
	}
}

// deliver takes one message from peer from: an answer goes to its call, a
// request to the library, served on a goroutine of its own. It never
// blocks (it runs on the node's goroutine).
func (t *transport) deliver(from nodes.PeerID, m nodes.Message) {
	if len(m.Body) < 8 {
		return // not this transport's
	}
	id := binary.BigEndian.Uint64([]byte(m.Body[:8]))
	ak, request := answers[m.Kind]
	if !request {
		t.pending.Answer(id, []byte(m.Body))
		return
	}
	t.wg.Add(1)
	go t.serve(from, m.Kind, ak, id, []byte(m.Body))
}

// serve hands one request to the library and sends its answer back.
func (t *transport) serve(from nodes.PeerID, k, ak nodes.Kind, id uint64, body []byte) {
	defer t.wg.Done()
	cmd, err := newRequest(k)
	if err == nil {
		err = decode(body, cmd)
	}
	if err != nil {
		fmt.Fprintf(t.host.Log(), "hashicorp-raft: a %s from position %d: %v\n", k, from, err)
		return
	}
	answer := make(chan raft.RPCResponse, 1)
	rpc := raft.RPC{Command: cmd, RespChan: answer}
	select {
	case t.consumer <- rpc:
	case <-t.stop:
		return
	}
	var r raft.RPCResponse
	select {
	case r = <-answer:
	case <-t.stop:
		return
	}
	if r.Error != nil {
		return // the library refused to answer: the caller's call fails as if lost
	}
	msg := nodes.Message{Kind: ak}
	switch a := r.Response.(type) {
	case *raft.AppendEntriesResponse:
		msg.A = int64(a.Term)
	case *raft.RequestVoteResponse:
		msg.A = int64(a.Term)
		if a.Granted {
			msg.B = 1 // a vote for the candidate in term A (nodes.Quorum.Grant)
		}
	case *raft.RequestPreVoteResponse:
		msg.A = int64(a.Term)
		if a.Granted {
			msg.B = 1
		}
	}
	out, err := encode(id, r.Response)
	if err != nil {
		fmt.Fprintf(t.host.Log(), "hashicorp-raft: answering a %s: %v\n", k, err)
		return
	}
	msg.Body = string(out)
	t.host.Send(from, msg)
}

func newRequest(k nodes.Kind) (any, error) {
	switch k {
	case kindAppend, kindHeartbeat:
		return new(raft.AppendEntriesRequest), nil
	case kindVote:
		return new(raft.RequestVoteRequest), nil
	case kindPreVote:
		return new(raft.RequestPreVoteRequest), nil
	case kindTimeoutNow:
		return new(raft.TimeoutNowRequest), nil
	}
	return nil, fmt.Errorf("kind %s is no request", k)
}

// close ends every call and every request being served, and waits for the
// serving goroutines.
func (t *transport) close() {
	close(t.stop)
	t.wg.Wait()
}

var msgpack = &codec.MsgpackHandle{}

// encode is the call number followed by v in msgpack, as the library's
// NetTransport encodes its RPCs; it fails if that exceeds a message body.
func encode(id uint64, v any) ([]byte, error) {
	var buf bytes.Buffer
	buf.Write(binary.BigEndian.AppendUint64(nil, id))
	if err := codec.NewEncoder(&buf, msgpack).Encode(v); err != nil {
		return nil, fmt.Errorf("encoding %T: %w", v, err)
	}
	if buf.Len() > nodes.MaxBodySize {
		return nil, fmt.Errorf("%T of %d bytes exceeds a message body (%d)", v, buf.Len(), nodes.MaxBodySize)
	}
	return buf.Bytes(), nil
}

func decode(b []byte, v any) error {
	if err := codec.NewDecoderBytes(b[8:], msgpack).Decode(v); err != nil {
		return fmt.Errorf("hashicorp-raft: decoding %T: %w", v, err)
	}
	return nil
}

var (
	_ raft.Transport   = (*transport)(nil)
	_ raft.WithPreVote = (*transport)(nil)
)
