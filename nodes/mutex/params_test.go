package mutex_test

import (
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes"
	_ "github.com/electbench/electbench/nodes/ring"
)

// Bad parameters are refused with one line naming the parameter, never a
// panic.
func TestBadParams(t *testing.T) {
	for _, tc := range []struct {
		spec   string
		params nodes.Params
		want   string
	}{
		{"central", nodes.Params{"requests": "-1"}, `parameter requests: "-1" is not a count`},
		{"central", nodes.Params{"requests": "many"}, `parameter requests: "many" is not a count`},
		{"token-ring", nodes.Params{"hold": "-1T"}, "parameter hold: must not be negative"},
		{"maekawa", nodes.Params{"think": "soon"}, `parameter think: "soon" is not a duration`},
		{"ricart-agrawala", nodes.Params{"stagger": "2X"}, `parameter stagger: "2X" is not a duration`},
		{"central", nodes.Params{"elect": "nope"}, `parameter elect: unknown algorithm "nope"`},
		{"central", nodes.Params{"elect": "ring"}, "parameter elect: ring is not an election algorithm of complete topology"},
		{"central", nodes.Params{"elect": "maekawa"}, "parameter elect: maekawa is not an election algorithm"},
		{"central", nodes.Params{"recover": "x"}, `parameter recover: "x" is not a duration`},
		{"ricart-agrawala", nodes.Params{"elect": "bully"}, `algorithm ricart-agrawala has no parameter "elect"`},
	} {
		a, v, err := nodes.Lookup(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		_, err = a.New(nodes.Config{Variant: v, Params: tc.params, N: 5, T: time.Millisecond})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: error %v, want one line with %q", tc.spec, tc.params, err, tc.want)
		}
	}
}
