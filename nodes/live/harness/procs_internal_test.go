package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"slices"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes/live"
	"github.com/electbench/electbench/pow"
)

// A node process collects at NodeGOGC unless the harness's environment or
// the options set GOGC, which it then keeps.
func TestNodeEnv(t *testing.T) {
	for _, tc := range []struct {
		own, extra, want []string
	}{
		{nil, nil, []string{"GOGC=" + NodeGOGC}},
		{[]string{"HOME=/root", "NOTGOGC=5"}, []string{"X=1"}, []string{"X=1", "GOGC=" + NodeGOGC}},
		{[]string{"GOGC=50"}, []string{"X=1"}, []string{"X=1"}},
		{nil, []string{"GOGC=off"}, []string{"GOGC=off"}},
	} {
		extra := slices.Clone(tc.extra)
		if got := nodeEnv(tc.own, extra); !slices.Equal(got, tc.want) {
			t.Errorf("own %q, extra %q: %q, want %q", tc.own, tc.extra, got, tc.want)
		}
		if !slices.Equal(extra, tc.extra) {
			t.Errorf("own %q, extra %q: the options' environment changed to %q", tc.own, tc.extra, extra)
		}
	}
}

// The harness checks the certificate of the ephemeral key a hello shows
// beside the identity's puzzle and its signature over the challenge: a
// process whose certificate does not verify (signed by another key, or
// missing) is unproven, so excluded, and vouched for in neither list; an
// honest one is vouched for with its key and certificate.
func TestHelloCertificate(t *testing.T) {
	ps := newProcs(&Options{Bits: 4}, onHosts{}, t.Logf)
	mint := func() *pow.Key {
		k, err := live.LoadOrMint(context.Background(), "", ps.puzzle())
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	k, other := mint(), mint()
	file, err := pow.Encode(&k.Identity)
	if err != nil {
		t.Fatal(err)
	}
	eph := make([]byte, live.EphemeralLen)
	rand.Read(eph)
	for _, tc := range []struct {
		name string
		cert []byte
		eph  []byte
		ok   bool
	}{
		{"its own key's", live.Certify(k, k.ID, eph), eph, true},
		{"another key's", live.Certify(other, k.ID, eph), eph, false},
		{"for another id", live.Certify(k, other.ID, eph), eph, false},
		{"a short key", live.Certify(k, k.ID, eph[:8]), eph[:8], false},
		{"none", nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &proc{idx: 0, pos: 0, challenge: "c0"}
			ps.byPos = []*proc{p, nil}
			r := &live.Report{Type: "hello", Identity: string(file), Kinds: live.KindNames(), Timers: live.TimerNames(), Control: live.ControlVersion,
				Proof: live.ProveToHarness(k, k.ID, p.challenge), Eph: tc.eph, Cert: tc.cert}
			if err := ps.hello(p, r); err != nil {
				t.Fatal(err)
			}
			if (p.unproven == nil) != tc.ok {
				t.Fatalf("unproven %v; want ok %v", p.unproven, tc.ok)
			}
			files, certs := ps.vouched()
			if len(files) != 2 || len(certs) != 2 || files[1] != "" || certs[1] != "" {
				t.Fatalf("vouched %q, %q; want two positions, the second empty", files, certs)
			}
			if !tc.ok {
				if files[0] != "" || certs[0] != "" || !strings.Contains(p.unproven.Error(), "certificate of its ephemeral key") {
					t.Errorf("an unproven process: vouched %q, %q; unproven %v", files[0], certs[0], p.unproven)
				}
				return
			}
			gotEph, gotCert, err := live.ParseVouchedCert(certs[0])
			if files[0] != string(file) || err != nil || !bytes.Equal(gotEph, tc.eph) || !bytes.Equal(gotCert, tc.cert) {
				t.Errorf("vouched %q, %q (%v); want its file, key and certificate", files[0], certs[0], err)
			}
		})
	}
}
