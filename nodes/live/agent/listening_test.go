package agent

import (
	"bytes"
	"net"
	"testing"
)

// TestParseListening: the line an agent prints once it listens gives its
// address and key back; anything else is refused.
func TestParseListening(t *testing.T) {
	key := pub(newKey(t))
	addr := &net.TCPAddr{IP: net.IPv4(198, 18, 0, 2), Port: 4711}
	got, k, err := ParseListening(Listening(addr, key))
	if err != nil || got != "198.18.0.2:4711" || !bytes.Equal(k, key) {
		t.Errorf("ParseListening(Listening(%v, %x)) = %q, %x, %v", addr, []byte(key), got, []byte(k), err)
	}
	for _, bad := range []string{
		"",
		"listening 127.0.0.1:1",
		"agent listening on 127.0.0.1:1, key 00ff",
		"agent listening on 127.0.0.1:1, key zz",
	} {
		if _, _, err := ParseListening(bad); err == nil {
			t.Errorf("ParseListening(%q) accepted it", bad)
		}
	}
}
