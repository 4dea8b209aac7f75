package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// toxiCall sends a ToxiRequest of the HTTP request req and returns the
// agent's reply.
func toxiCall(t *testing.T, c *Client, id uint32, req string) *Msg {
	t.Helper()
	if err := c.Send(&Msg{Kind: ToxiRequest, ID: id, Data: []byte(req)}); err != nil {
		t.Fatal(err)
	}
	m := next(t, c)
	if m.Kind != ToxiReply || m.ID != id {
		t.Fatalf("%+v, want the ToxiReply of request %d", m, id)
	}
	return m
}

// body is the body of the HTTP response in wire form data, whose status
// must be 200.
func body(t *testing.T, data []byte) string {
	t.Helper()
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
	if err != nil {
		t.Fatalf("%q: %v", data, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v: %q", resp.StatusCode, err, b)
	}
	return string(b)
}

// TestAgentToxiproxyServer: the agent starts its host's Toxiproxy server
// on the controller's ToxiStart, reporting its limit on open files, and
// forwards each ToxiRequest to that server alone (only the path and query
// of the request are kept, whatever host it names); a second start
// replaces the server; ToxiStop ends it; a request without a server, or
// one that is no HTTP request, fails in its reply.
func TestAgentToxiproxyServer(t *testing.T) {
	ctl := newKey(t)
	ta := startAgent(t, pub(ctl), DefaultGrace)
	c := dial(t, ta, ctl)
	if m := toxiCall(t, c, 1, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n"); m.Code != -1 || !strings.Contains(string(m.Data), "no Toxiproxy server runs") {
		t.Errorf("a request before any start: %+v, want a failure", m)
	}
	start := func(id uint32) int32 {
		t.Helper()
		if err := c.Send(&Msg{Kind: ToxiStart, ID: id}); err != nil {
			t.Fatal(err)
		}
		m := next(t, c)
		if m.Kind != ToxiReply || m.ID != id || m.Code <= 0 {
			t.Fatalf("%+v, want the ToxiReply of start %d with the limit on open files", m, id)
		}
		var pid int32
		b := body(t, toxiCall(t, c, id+100, "GET /pid HTTP/1.1\r\nHost: x\r\n\r\n").Data)
		if _, err := fmt.Sscanf(b, "pid %d", &pid); err != nil {
			t.Fatalf("%q: %v", b, err)
		}
		return pid
	}
	first := start(2)
	req := "POST /proxies?x=1 HTTP/1.1\r\nHost: elsewhere.example:80\r\nContent-Length: 5\r\n\r\n{\"a\"}"
	if b := body(t, toxiCall(t, c, 3, req).Data); b != fmt.Sprintf("pid %d POST /proxies?x=1 {\"a\"}", first) {
		t.Errorf("a request naming another host: %q, want this host's server's answer with the request's path and body", b)
	}
	if b := body(t, toxiCall(t, c, 4, "GET http://elsewhere.example/proxies HTTP/1.1\r\nHost: elsewhere.example\r\n\r\n").Data); b != fmt.Sprintf("pid %d GET /proxies ", first) {
		t.Errorf("a request in absolute form: %q, want this host's server's answer", b)
	}
	if m := toxiCall(t, c, 5, "no request\r\n\r\n"); m.Code != -1 {
		t.Errorf("no HTTP request: %+v, want a failure", m)
	}
	second := start(6)
	if second == first || !gone(first) {
		t.Errorf("a second start: server %d, the first %d gone: %v; want a new one in its place", second, first, gone(first))
	}
	if err := c.Send(&Msg{Kind: ToxiStop, ID: 7}); err != nil {
		t.Fatal(err)
	}
	if m := next(t, c); m.Kind != ToxiReply || m.ID != 7 || m.Code != 0 {
		t.Fatalf("%+v, want the ToxiReply of the stop", m)
	}
	if !gone(second) {
		t.Errorf("server %d runs after ToxiStop", second)
	}
	if m := toxiCall(t, c, 8, "GET /version HTTP/1.1\r\nHost: x\r\n\r\n"); m.Code != -1 {
		t.Errorf("a request after the stop: %+v, want a failure", m)
	}
}
