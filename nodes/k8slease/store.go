package k8slease

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/electbench/electbench/nodes"
)

// store is the process that serves the coordination.k8s.io/v1 Lease API,
// as the API server (and etcd behind it) would for the library's LeaseLock:
// GET, CREATE (POST) and UPDATE (PUT) of one namespace's Leases, each
// write given the next resourceVersion; an UPDATE whose resourceVersion is
// not the stored one is refused with 409 Conflict, a CREATE of a Lease
// that exists with 409 AlreadyExists, a GET or UPDATE of one that does not
// with 404 NotFound, each with the metav1.Status body the API server
// sends, so the library's errors.IsNotFound and IsConflict read them as
// they read the real server's. It answers on the node's goroutine (an
// in-memory map, nothing that blocks) and keeps its Leases in the node's
// stable storage, so a crash and restart of the store loses no write it
// acknowledged, as etcd's would not.
//
// The store decides the holder its Lease names whenever that changes: the
// checker then asks every live process, the store included, to agree on
// one leader, and the store's view is the API server's.
type store struct {
	host    nodes.Host
	version uint64 // the last resourceVersion given
	leases  map[string]*coordinationv1.Lease
	holder  string // the holder last decided
}

// stored is what the store keeps in the node's stable storage.
type stored struct {
	Version uint64                  `json:"version"`
	Leases  []*coordinationv1.Lease `json:"leases"`
}

const leasesPath = "/apis/coordination.k8s.io/v1/namespaces/"

var leaseResource = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}

func (s *store) Start(host nodes.Host) error {
	s.host, s.leases = host, map[string]*coordinationv1.Lease{}
	if b := host.Stable().LoadStable(); len(b) > 0 {
		var st stored
		if err := json.Unmarshal(b, &st); err != nil {
			return fmt.Errorf("k8s-lease store: reading its stable storage: %w", err)
		}
		s.version = st.Version
		for _, l := range st.Leases {
			s.leases[l.Namespace+"/"+l.Name] = l
			s.decideHolder(l)
		}
	}
	return nil
}

func (s *store) Stop() {}

// Deliver serves one request and sends its answer back at once.
func (s *store) Deliver(from nodes.PeerID, m nodes.Message) {
	ak, ok := answers[m.Kind]
	if !ok || len(m.Body) < 8 {
		return // not a request
	}
	req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(m.Body[8:])))
	var code int
	var body []byte
	if err != nil {
		code, body = statusOf(apierrors.NewBadRequest(fmt.Sprintf("reading the request: %v", err)))
	} else {
		code, body = s.serve(req)
	}
	resp := &http.Response{StatusCode: code, ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": {"application/json"}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body))}
	var out bytes.Buffer
	out.WriteString(m.Body[:8]) // the call number
	if err := resp.Write(&out); err != nil {
		fmt.Fprintf(s.host.Log(), "k8s-lease store: writing an answer: %v\n", err)
		return
	}
	s.host.Send(from, nodes.Message{Kind: ak, A: int64(code), Body: out.String()})
}

// serve answers one request: its status code and JSON body.
func (s *store) serve(req *http.Request) (int, []byte) {
	ns, rest, ok := strings.Cut(strings.TrimPrefix(req.URL.Path, leasesPath), "/leases")
	if !strings.HasPrefix(req.URL.Path, leasesPath) || !ok || strings.Contains(ns, "/") {
		return statusOf(apierrors.NewNotFound(schema.GroupResource{}, req.URL.Path))
	}
	name := strings.TrimPrefix(rest, "/")
	switch req.Method {
	case http.MethodGet:
		l := s.leases[ns+"/"+name]
		if l == nil {
			return statusOf(apierrors.NewNotFound(leaseResource, name))
		}
		return encodeLease(http.StatusOK, l)
	case http.MethodPost:
		return s.write(req, ns, "", true)
	case http.MethodPut:
		return s.write(req, ns, name, false)
	}
	return statusOf(apierrors.NewMethodNotSupported(leaseResource, req.Method))
}

// write is a CREATE (create) or an UPDATE of the Lease name.
func (s *store) write(req *http.Request, ns, name string, create bool) (int, []byte) {
	var l coordinationv1.Lease
	if err := json.NewDecoder(req.Body).Decode(&l); err != nil {
		return statusOf(apierrors.NewBadRequest(fmt.Sprintf("decoding the Lease: %v", err)))
	}
	if create {
		name = l.Name
	}
	if l.Name != name || (l.Namespace != "" && l.Namespace != ns) {
		return statusOf(apierrors.NewBadRequest(fmt.Sprintf("the Lease %s/%s is not %s/%s", l.Namespace, l.Name, ns, name)))
	}
	key := ns + "/" + name
	old := s.leases[key]
	switch {
	case create && old != nil:
		return statusOf(apierrors.NewAlreadyExists(leaseResource, name))
	case !create && old == nil:
		return statusOf(apierrors.NewNotFound(leaseResource, name))
	case !create && l.ResourceVersion != "" && l.ResourceVersion != old.ResourceVersion:
		// Optimistic concurrency, as the API server's: the writer read an
		// older version. (Without a resourceVersion the API server updates
		// a Lease unconditionally, and so does the store.)
		return statusOf(apierrors.NewConflict(leaseResource, name,
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again")))
	}
	s.version++
	l.Namespace, l.ResourceVersion = ns, strconv.FormatUint(s.version, 10)
	l.TypeMeta = metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"}
	if old != nil {
		l.UID, l.CreationTimestamp = old.UID, old.CreationTimestamp
	}
	s.leases[key] = &l
	if err := s.save(); err != nil {
		return statusOf(apierrors.NewInternalError(err))
	}
	s.decideHolder(&l)
	code := http.StatusOK
	if create {
		code = http.StatusCreated
	}
	return encodeLease(code, &l)
}

// save keeps every Lease in the node's stable storage before the write is
// acknowledged.
func (s *store) save() error {
	st := stored{Version: s.version}
	for _, l := range s.leases {
		st.Leases = append(st.Leases, l)
	}
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("k8s-lease store: saving its Leases: %w", err)
	}
	s.host.Stable().SaveStable(b)
	return nil
}

// decideHolder decides the holder l names, when it changed: a candidate's
// identity is its position in decimal.
func (s *store) decideHolder(l *coordinationv1.Lease) {
	if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == s.holder {
		return
	}
	s.holder = *l.Spec.HolderIdentity
	if r, ok := rankOf(s.host.Peers(), s.holder); ok {
		s.host.Decide(r)
	}
}

// rankOf is the rank of the process whose identity is id.
func rankOf(peers []nodes.Peer, id string) (nodes.Rank, bool) {
	p, err := strconv.Atoi(id)
	if err != nil {
		return nodes.Rank{}, false
	}
	for _, q := range peers {
		if int(q.ID) == p {
			return q.Rank, true
		}
	}
	return nodes.Rank{}, false
}

func encodeLease(code int, l *coordinationv1.Lease) (int, []byte) {
	b, err := json.Marshal(l)
	if err != nil {
		return statusOf(apierrors.NewInternalError(err))
	}
	return code, b
}

// statusOf is the API server's answer for err: its code and the
// metav1.Status it sends.
func statusOf(err *apierrors.StatusError) (int, []byte) {
	st := err.ErrStatus
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	b, jerr := json.Marshal(st)
	if jerr != nil {
		b = []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure"}`)
	}
	return int(st.Code), b
}

// callNumber reads a message's call number (its first 8 bytes).
func callNumber(m nodes.Message) uint64 { return binary.BigEndian.Uint64([]byte(m.Body[:8])) }
