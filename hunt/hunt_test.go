package hunt

import (
	"context"
	"testing"

	"github.com/electbench/electbench/chaos"
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/etcdraft"
	_ "github.com/electbench/electbench/nodes/quorum"
	_ "github.com/electbench/electbench/nodes/ring"
)

// base reads a base scenario written in the test.
func base(t *testing.T, text string) *chaos.Scenario {
	t.Helper()
	ss, err := chaos.Parse("base.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return ss[0]
}

func space(t *testing.T, text string, kinds ...string) *Space {
	t.Helper()
	s, err := NewSpace(base(t, text), kinds, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hunt(t *testing.T, o Options) (*Finding, Stats) {
	t.Helper()
	f, st, err := Run(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	return f, st
}
