package chaos

import (
	"testing"
)

// TestFormatRoundTrips holds Format to its promise on every built-in
// scenario: the file it writes parses back to the same scenario, and
// writing that again gives the same bytes.
func TestFormatRoundTrips(t *testing.T) {
	for _, name := range BuiltinNames() {
		data, _ := Builtin(name)
		scs, err := Parse(name, data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, s := range scs {
			roundTrip(t, s)
			out, _ := Format(s)
			back, _ := Parse("formatted", out)
			again, _ := Format(back[0])
			if string(again) != string(out) {
				t.Errorf("%s/%s: formatting twice differs:\n%s\n---\n%s", name, s.Name, out, again)
			}
		}
	}
}

// TestFormatWritesHeals: a heal item is read into the fault it names
// (Fault.Heal), and written back as an item of its own; no built-in
// scenario has one.
func TestFormatWritesHeals(t *testing.T) {
	const file = `name: healed
algorithms: [bully]
faults:
  - kind: pause
    name: nap
    target: highest
    at: 3T
  - heal: nap
    at: leader-elected+2T
  - kind: partition
    name: cut
    shape: halves
    at: 5T
  - heal: cut
    at: after-messages(7)
`
	scs, err := Parse("healed.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, scs[0])
	out, _ := Format(scs[0])
	back, _ := Parse("formatted", out)
	for i, f := range back[0].Faults {
		if f.Heal == nil {
			t.Errorf("faults[%d] (%s) lost its heal in:\n%s", i, f.Name, out)
		}
	}
}

// comparable is s without where it was read from (positions, the file)
// nor the parameters' setters (functions, which never compare equal).
func comparable(s *Scenario) Scenario {
	c := *s
	c.File, c.Line, c.pos = "", 0, nil
	c.Faults = append([]Fault(nil), s.Faults...)
	for i := range c.Faults {
		f := &c.Faults[i]
		f.Line = 0
		f.Params = append([]Param(nil), f.Params...)
		for j := range f.Params {
			f.Params[j].set = nil
		}
	}
	return c
}

// TestEveryFieldEncodes fails on a field added to a table without an
// encoder (Format would panic on it).
func TestEveryFieldEncodes(t *testing.T) {
	attachEncoders.Do(attach)
	check := func(table, name string, has bool) {
		if !has {
			t.Errorf("%s field %q has no encoder (chaos/format.go)", table, name)
		}
	}
	for _, f := range scenarioFields {
		check("scenario", f.name, f.enc != nil)
	}
	for _, f := range networkFields {
		check("network", f.name, f.enc != nil)
	}
	for _, f := range linkFields {
		check("link", f.name, f.enc != nil)
	}
	for _, f := range algorithmFields {
		check("algorithm", f.name, f.enc != nil)
	}
	for _, f := range expectFields {
		check("expect", f.name, f.enc != nil)
	}
	for _, f := range columnFields {
		check("column", f.name, f.enc != nil)
	}
	for _, f := range healFields {
		check("heal", f.name, f.enc != nil)
	}
	for _, f := range drawsFields {
		check("draws", f.name, f.enc != nil)
	}
	for _, k := range Kinds() {
		for _, f := range faultFields(k) {
			check(k.Name, f.name, f.enc != nil)
		}
	}
}
