package k8slease

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"time"

	"github.com/electbench/electbench/nodes"
)

// roundTripper is the clientset's http.RoundTripper: each request goes to
// the store as one Message of its verb's kind, whose Body is an 8-byte call
// number and the request as HTTP/1.1 writes it on the wire; the answer
// comes back as the verb's Resp with the same number and the response as
// the server wrote it. So every request and answer crosses the node's
// links: counted by kind and size, and lost, delayed or cut off by the
// node's faults and Toxiproxy's.
//
// A request whose answer does not come fails when its context ends (the
// library's renew deadline) or after timeout (the renew deadline, as
// kube-controller-manager sets its leader-election client's Timeout),
// whichever is first, as a connection to an unreachable API server would.
type roundTripper struct {
	host    nodes.Host
	store   nodes.PeerID
	timeout time.Duration
	stop    chan struct{}         // closed by close: requests in flight fail
	pending nodes.Pending[string] // requests waiting for their answer, by number
}

func newRoundTripper(host nodes.Host, store nodes.PeerID, timeout time.Duration) *roundTripper {
	return &roundTripper{host: host, store: store, timeout: timeout, stop: make(chan struct{})}
}

// verbs gives each HTTP method the library uses its kind, and each kind
// its answer's.
var (
	verbs   = map[string]nodes.Kind{http.MethodGet: kindGet, http.MethodPost: kindCreate, http.MethodPut: kindUpdate}
	answers = map[nodes.Kind]nodes.Kind{kindGet: kindGetResp, kindCreate: kindCreateResp, kindUpdate: kindUpdateResp}
)

// errStopped is a request's error once the candidate stops.
var errStopped = fmt.Errorf("k8s-lease: the candidate stopped")

func (t *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	k, ok := verbs[req.Method]
	if !ok {
		return nil, fmt.Errorf("k8s-lease: the store serves GET, POST and PUT, not %s %s", req.Method, req.URL.Path)
	}
	id, answer := t.pending.Open()
	defer t.pending.Close(id)
	var buf bytes.Buffer
	buf.Write(binary.BigEndian.AppendUint64(nil, id))
	if err := req.Write(&buf); err != nil {
		return nil, fmt.Errorf("k8s-lease: writing %s %s: %w", req.Method, req.URL.Path, err)
	}
	if buf.Len() > nodes.MaxBodySize {
		return nil, fmt.Errorf("k8s-lease: %s %s is %d bytes, more than a message carries (%d)", req.Method, req.URL.Path, buf.Len(), nodes.MaxBodySize)
	}
	t.host.Send(t.store, nodes.Message{Kind: k, Body: buf.String()})
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	select {
	case b := <-answer:
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader([]byte(b[8:]))), req)
		if err != nil {
			return nil, fmt.Errorf("k8s-lease: the store's answer to %s %s: %w", req.Method, req.URL.Path, err)
		}
		return resp, nil
	case <-req.Context().Done():
		return nil, fmt.Errorf("k8s-lease: %s %s: %w", req.Method, req.URL.Path, req.Context().Err())
	case <-timer.C:
		return nil, fmt.Errorf("k8s-lease: %s %s: no answer from the store within %v", req.Method, req.URL.Path, t.timeout)
	case <-t.stop:
		return nil, errStopped
	}
}

// deliver hands an answer to its request; it never blocks (it runs on the
// node's goroutine). An answer to a request that gave up is dropped.
func (t *roundTripper) deliver(m nodes.Message) {
	if len(m.Body) < 8 {
		return
	}
	t.pending.Answer(callNumber(m), m.Body)
}

func (t *roundTripper) close() { close(t.stop) }
