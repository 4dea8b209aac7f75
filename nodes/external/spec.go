package external

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/shlex"

	"github.com/electbench/electbench/nodes"
)

// DefaultStepTimeout bounds the time a node may take to end a step, its
// wall time less the time it waited for a CPU (budget.go;
// NODE-PROTOCOL.md, "Mistakes"; --node-timeout).
const DefaultStepTimeout = 10 * time.Second

// Spec describes an external algorithm: a program, run once per node,
// speaking NODE-PROTOCOL.md.
type Spec struct {
	Name     string         // the algorithm's name in rows; default: the program's base name
	Command  []string       // the program and its arguments (no shell)
	Dir      string         // its working directory; "" for the harness's
	Topology nodes.Topology // the links its nodes are given
	// Theory names a built-in algorithm whose closed forms fill the
	// theory_messages column ("" for none).
	Theory string
	// Maintenance lists message types that are not election messages,
	// besides those each node declares in its init_ok.
	Maintenance []string
	// StepTimeout bounds each step's wall time less the time the
	// program waited for a CPU (budget.go); 0 means DefaultStepTimeout.
	StepTimeout time.Duration
}

// ParseCommand splits a command line into words as a POSIX shell would
// (quotes and backslashes), without running a shell: the program itself is
// the node's process, so that stopping or killing it reaches it.
func ParseCommand(s string) ([]string, error) {
	words, err := shlex.Split(s)
	if err != nil {
		return nil, fmt.Errorf("node command %q: %w", s, err)
	}
	if len(words) == 0 {
		return nil, errors.New("node command is empty")
	}
	return words, nil
}

// ParseTopology reads a topology's protocol name: ring,
// bidirectional-ring or complete.
func ParseTopology(s string) (nodes.Topology, error) {
	for _, t := range []nodes.Topology{nodes.RingUni, nodes.RingBi, nodes.Complete} {
		if s == t.String() {
			return t, nil
		}
	}
	return 0, fmt.Errorf("topology %q: want ring, bidirectional-ring or complete", s)
}

// Algorithm validates the spec and returns the algorithm it describes,
// ready for nodes.Register. The program is not run here: a trial spawns
// one process per node.
func (s Spec) Algorithm() (nodes.Algorithm, error) {
	if len(s.Command) == 0 {
		return nodes.Algorithm{}, errors.New("external algorithm: no command")
	}
	if s.Name == "" {
		s.Name = defaultName(s.Command)
	}
	// The name is written into every row and table: the documented
	// characters only, and no leading '-' (with = + @, what a spreadsheet
	// takes for a formula), so no cell or terminal line carries a formula
	// or an escape sequence from it.
	if !nameRE.MatchString(s.Name) {
		return nodes.Algorithm{}, fmt.Errorf("external algorithm name %q: use 1 to 64 letters, digits, - and _, not starting with - (choose one with --name)", s.Name)
	}
	if _, _, err := nodes.Lookup(s.Name); err == nil {
		return nodes.Algorithm{}, fmt.Errorf("external algorithm name %q is taken by another algorithm: choose another with --name", s.Name)
	}
	if s.Topology == 0 {
		return nodes.Algorithm{}, fmt.Errorf("external algorithm %s: no topology (ring, bidirectional-ring or complete)", s.Name)
	}
	for _, m := range s.Maintenance {
		if !typeRE.MatchString(m) {
			return nodes.Algorithm{}, fmt.Errorf("external algorithm %s: maintenance type %q is not 1 to 64 characters of A-Z a-z 0-9 _ -", s.Name, m)
		}
	}
	if s.StepTimeout < 0 {
		return nodes.Algorithm{}, fmt.Errorf("external algorithm %s: negative step timeout %v", s.Name, s.StepTimeout)
	}
	if s.StepTimeout == 0 {
		s.StepTimeout = DefaultStepTimeout
	}
	if err := s.CheckProgram(); err != nil {
		return nodes.Algorithm{}, fmt.Errorf("external algorithm %s: %w", s.Name, err)
	}
	a := nodes.Algorithm{
		Name:       s.Name,
		Family:     "external",
		Summary:    fmt.Sprintf("external program %s (%s)", strings.Join(s.Command, " "), s.Topology),
		Topology:   s.Topology,
		OpenParams: true,
		Variants:   []nodes.Variant{{Name: "default", Summary: "as the program implements it"}},
		New:        s.newMachines,
		External: &nodes.ExternalDef{
			Name: s.Name, Command: s.Command, Dir: s.Dir, Topology: s.Topology.String(),
			Theory: s.Theory, Maintenance: s.Maintenance, StepTimeout: s.StepTimeout,
		},
	}
	if s.Theory != "" {
		b, _, err := nodes.Lookup(s.Theory)
		if err != nil {
			return nodes.Algorithm{}, fmt.Errorf("external algorithm %s: theory: %w", s.Name, err)
		}
		if b.Topology != s.Topology {
			return nodes.Algorithm{}, fmt.Errorf("external algorithm %s: theory %s is for a %s topology, not %s", s.Name, b.Name, b.Topology, s.Topology)
		}
		if b.Theory != nil {
			// The figures of the built-in's default variant.
			variant := b.Variants[0].Name
			a.Theory = func(in nodes.TheoryInput) nodes.Theory {
				in.Variant = variant
				return b.Theory(in)
			}
		}
		a.StartsAll, a.BoundedDelay, a.Restless = b.StartsAll, b.BoundedDelay, b.Restless
	}
	return a, nil
}

// defaultName is an algorithm's name when none is given: the base name of
// the program's last word without its extension, so that `python3 cr.py`
// is cr.
// nameRE is an external algorithm's name: typeRE's characters, not
// starting with '-'.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$`)

func defaultName(command []string) string {
	base := filepath.Base(command[len(command)-1])
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// CheckProgram reports a program that cannot start, before anything runs:
// a bare name not on $PATH, or a path (relative to the scenario's
// directory, where the program starts) that is missing, a directory or not
// executable. A run of such a program would otherwise fail each trial.
func (s Spec) CheckProgram() error {
	prog := s.Command[0]
	if !strings.ContainsRune(prog, filepath.Separator) {
		if _, err := exec.LookPath(prog); err != nil {
			return fmt.Errorf("program %q is not found in $PATH", prog)
		}
		return nil
	}
	path := prog
	if !filepath.IsAbs(path) && s.Dir != "" {
		path = filepath.Join(s.Dir, path)
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("program %q: %w", prog, err)
	case fi.IsDir():
		return fmt.Errorf("program %q is a directory", prog)
	case fi.Mode()&0o111 == 0:
		return fmt.Errorf("program %q is not executable (chmod +x %s)", prog, path)
	}
	return nil
}
