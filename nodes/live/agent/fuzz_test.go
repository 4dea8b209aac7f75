package agent

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// FuzzReadMsg: any byte string either decodes to a frame that encodes back
// to the same bytes, or fails with ErrFrame (or a short read); nothing
// panics or allocates beyond the frame's bounded length.
func FuzzReadMsg(f *testing.F) {
	for _, m := range []*Msg{
		{Kind: Hello, Data: []byte("v1")},
		{Kind: Start, ID: 3, Args: []string{"electbench", "node"}, Env: []string{"A=1"}, Addr: "198.18.0.2"},
		{Kind: Line, ID: 3, At: 123456789, Code: 1, Data: []byte(`{"type":"step"}`)},
		{Kind: Signal, ID: 3, Code: SigKill},
	} {
		f.Add(appendMsg(nil, m))
	}
	f.Add([]byte{byte(Start), 0, 0, 0, 20, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := readMsg(bytes.NewReader(b))
		if err != nil {
			return
		}
		again, err := readMsg(bytes.NewReader(appendMsg(nil, m)))
		if err != nil {
			t.Fatalf("re-reading %+v: %v", m, err)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("decoded %+v, re-encoded and decoded %+v", m, again)
		}
	})
}

func TestReadMsgRefusesOversizedFrame(t *testing.T) {
	b := []byte{byte(Line), 0xff, 0xff, 0xff, 0xff}
	if _, err := readMsg(bytes.NewReader(b)); !errors.Is(err, ErrFrame) {
		t.Fatalf("a 4 GiB frame's header: %v, want ErrFrame before any allocation", err)
	}
}

func TestReadMsgRefusesUnknownKind(t *testing.T) {
	b := appendMsg(nil, &Msg{Kind: 42})
	if _, err := readMsg(bytes.NewReader(b)); !errors.Is(err, ErrFrame) {
		t.Fatalf("kind 42: %v, want ErrFrame", err)
	}
}
