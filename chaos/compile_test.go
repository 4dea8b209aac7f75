package chaos

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/trial"
)

// Every registered kind compiles, with its required parameters, to a valid
// timeline fault that acts on what its class says (processes or links) and
// keeps its triggers and its duration.
func TestEveryKindCompiles(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: kinds\nalgorithms: [bully]\nnodes: 6\nfaults:\n")
	for _, k := range Kinds() {
		line := "  - {kind: " + k.Name + ", at: 2T"
		switch k.Class {
		case ProcessFault, DetectorFault:
			line += ", target: 1"
		case PartitionFault:
			line += ", shape: halves"
		}
		for _, p := range k.ParamDocs() {
			if p.Required {
				switch p.Type {
				case "duration":
					line += ", " + p.Name + ": 1T"
				case "probability":
					line += ", " + p.Name + ": 0.5"
				default:
					line += ", " + p.Name + ": 100"
				}
			}
		}
		if k.Heals != "" {
			line += ", for: 5T"
		}
		b.WriteString(line + "}\n")
	}
	scs, err := Parse("kinds.yaml", []byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	const T = time.Millisecond
	for i := range scs[0].Faults {
		f := &scs[0].Faults[i]
		tf := f.Compile(T)
		if err := tf.Validate(); err != nil {
			t.Errorf("%s compiles to an invalid fault: %v", f.Kind, err)
		}
		class := f.KindInfo().Class
		if onLinks := class == LinkFault || class == PartitionFault; tf.OnLinks() != onLinks {
			t.Errorf("%s (%s) compiles to effect %s", f.Kind, class, tf.What())
		}
		if tf.Start != (trial.When{Trigger: trial.AtTime, At: 2 * T}) {
			t.Errorf("%s starts %+v, want at 2ms", f.Kind, tf.Start)
		}
		if heals := f.KindInfo().Heals != ""; heals != (tf.For == 5*T) {
			t.Errorf("%s: lasts %v", f.Kind, tf.For)
		}
	}
}

// A fault's parameters are kept in its kind's order, whatever the order of
// its keys (the plan hash prints them), and compile the same.
func TestParamsInKindOrder(t *testing.T) {
	var got []string
	for _, f := range []string{"{kind: slicer, delay: 1T, average-size: 8}", "{kind: slicer, average-size: 8, delay: 1T}"} {
		scs, err := Parse("p.yaml", []byte("name: p\nalgorithms: [bully]\nfaults:\n  - "+f+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		ps := scs[0].Faults[0].Params
		if c := scs[0].Faults[0].Compile(time.Millisecond).Link; c != (trial.Slice{Size: 8, Delay: time.Millisecond}) {
			t.Errorf("%s compiles to %+v", f, c)
		}
		got = append(got, fmt.Sprint(ps))
	}
	if got[0] != got[1] || got[0] != "[average-size=8 size-variation=0 delay=1T]" {
		t.Fatalf("params %q", got)
	}
}
