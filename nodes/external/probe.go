package external

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/electbench/electbench/nodes"
)

// Probe drives one node program outside any trial, line by line: the
// conformance check (electbench node-check) uses it to try the program on
// inputs a trial would not send.
type Probe struct {
	spec Spec
	proc *process
	name string
}

// StartProbe starts the program of spec as node name.
func StartProbe(spec Spec, name string) (*Probe, error) {
	p, err := spawn(spec.Command, spec.Dir, spec.timeout())
	if err != nil {
		return nil, err
	}
	return &Probe{spec: spec, proc: p, name: name}, nil
}

// Step writes one input line and reads the node's lines up to the end of
// the step (init_ok after an init, done otherwise), checking each as a
// trial would. It returns the lines before the last; the error says in
// plain words what went wrong.
func (pr *Probe) Step(line []byte, init bool) ([][]byte, error) {
	if err := pr.proc.send(line); err != nil {
		if errors.Is(err, errTimeout) {
			return nil, fmt.Errorf("did not read its input within %v", pr.spec.timeout())
		}
		return nil, fmt.Errorf("could not be sent its input: the program %s", pr.proc.exitStatus())
	}
	pr.proc.startBudget(init)
	var out [][]byte
	for {
		raw, err := pr.proc.readLine()
		switch {
		case errors.Is(err, errStartup), errors.Is(err, nodes.ErrInfrastructure):
			return out, err
		case errors.Is(err, errTimeout):
			return out, fmt.Errorf("did not end the step within %v (it must write %s)%s", pr.spec.timeout(), endOf(init), pr.proc.budget.spent())
		case errors.Is(err, errLong):
			return out, fmt.Errorf("wrote a line longer than %d bytes", MaxLine)
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
			return out, fmt.Errorf("ended its output before the step's end: the program %s", pr.proc.exitStatus())
		case err != nil:
			return out, err
		}
		o, err := parseOutput(raw, pr.name)
		if err != nil {
			return out, fmt.Errorf("wrote %q: %v", cut(string(raw), 200), err)
		}
		switch {
		case init && o.op == opInitOK:
			if o.inReplyTo != nil && *o.inReplyTo != 1 {
				return out, fmt.Errorf("answered init with in_reply_to %d, not its msg_id 1", *o.inReplyTo)
			}
			return out, nil
		case init && o.op != opLog:
			return out, fmt.Errorf("wrote %q before init_ok: a node's first line must be init_ok", cut(string(raw), 200))
		case !init && o.op == opDone:
			return out, nil
		case !init && o.op == opInitOK:
			return out, fmt.Errorf("wrote init_ok outside init: %q", cut(string(raw), 200))
		}
		out = append(out, append([]byte(nil), raw...))
	}
}

func endOf(init bool) string {
	if init {
		return `{"type":"init_ok"} to eb`
	}
	return `{"type":"done"} to eb`
}

// Close stops the program and reaps it.
func (pr *Probe) Close() {
	pr.proc.closeInput()
	pr.proc.stop(time.Now().Add(stopGrace))
}
