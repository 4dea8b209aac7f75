package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/external"
	"github.com/electbench/electbench/reports"
)

// externalOptions are the flags that add an algorithm written in any
// language (docs/NODE-PROTOCOL.md) to `electbench run`.
type externalOptions struct {
	command  string
	topology string
	name     string
	theory   string
	timeout  time.Duration
}

func (o *externalOptions) bind(f *pflag.FlagSet) {
	f.StringVar(&o.command, "node-cmd", "", "an algorithm in any language: the program run once per node (docs/NODE-PROTOCOL.md)")
	f.StringVar(&o.topology, "topology", "", "with --node-cmd: ring, bidirectional-ring or complete")
	f.StringVar(&o.name, "name", "", "with --node-cmd: the algorithm's name in rows (default: the program's base name)")
	f.StringVar(&o.theory, "node-theory", "", "with --node-cmd: a built-in algorithm whose reference figures fill theory_messages")
	f.DurationVar(&o.timeout, "node-timeout", external.DefaultStepTimeout, "with --node-cmd: time a node may take to end a step (wall time less its wait for a CPU)")
}

// spec builds the external algorithm's spec from the flags; ok is false
// when --node-cmd is not set (and no other of these flags may be).
func (o *externalOptions) spec(cmd *cobra.Command) (s external.Spec, ok bool, err error) {
	if o.command == "" {
		for _, f := range []string{"topology", "name", "node-theory", "node-timeout"} {
			if cmd.Flags().Changed(f) {
				return s, false, badInputf("--%s needs --node-cmd", f)
			}
		}
		return s, false, nil
	}
	argv, err := external.ParseCommand(o.command)
	if err != nil {
		return s, false, badInputf("--node-cmd: %w", err)
	}
	if o.topology == "" {
		return s, false, badInputf("--node-cmd needs --topology: ring, bidirectional-ring or complete")
	}
	topo, err := external.ParseTopology(o.topology)
	if err != nil {
		return s, false, badInputf("--topology: %w", err)
	}
	if o.timeout <= 0 {
		return s, false, badInputf("--node-timeout %v: must be positive", o.timeout)
	}
	return external.Spec{Name: o.name, Command: argv, Topology: topo, Theory: o.theory, StepTimeout: o.timeout}, true, nil
}

// registerExternal registers the --node-cmd algorithm, if any, and makes
// it the run's algorithm when --algo is not given. Node programs' standard
// error (theirs and scenario files' programs') goes to DIR/nodes.log, kept
// with the run, created when the first line comes; the returned function
// closes it.
func registerExternal(cmd *cobra.Command, o *runOptions) (func(), error) {
	log := &lazyFile{path: filepath.Join(o.out, "nodes.log")}
	external.SetLog(log)
	done := func() {
		external.SetLog(nil)
		log.close()
	}
	s, ok, err := o.external.spec(cmd)
	if err != nil {
		done()
		return nil, err
	}
	if !ok {
		return done, nil
	}
	name, err := external.Register(s)
	if err != nil {
		done()
		return nil, badInput(err)
	}
	if !cmd.Flags().Changed("algo") {
		o.algos = name
	}
	return done, nil
}

// lazyFile is a log file opened for appending on its first write, so that
// runs without node programs leave none. The external package serialises
// its writes. Past max bytes (0: maxNodesLog) it is rotated: renamed
// PATH.1, replacing the one before, and begun again, so that the run's
// log takes at most twice max whatever its programs write
// (NODE-PROTOCOL.md, "Standard error").
type lazyFile struct {
	path string
	max  int64
	f    *os.File
	size int64 // bytes in f
	err  error
}

// maxNodesLog is where nodes.log is rotated.
const maxNodesLog = 64 << 20

func (l *lazyFile) Write(b []byte) (int, error) {
	limit := l.max
	if limit == 0 {
		limit = maxNodesLog
	}
	if l.f != nil && l.size > 0 && l.size+int64(len(b)) > limit {
		l.f.Close()
		l.f, l.size = nil, 0
		if err := os.Rename(l.path, l.path+".1"); err != nil {
			l.err = fmt.Errorf("rotating %s: %w", l.path, err)
		}
	}
	if l.f == nil && l.err == nil {
		if l.err = os.MkdirAll(filepath.Dir(l.path), 0o755); l.err == nil {
			l.f, l.err = os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		}
		if l.err == nil {
			// A resumed run appends to the log of the run before.
			if st, err := l.f.Stat(); err == nil {
				l.size = st.Size()
			}
		}
	}
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.f.Write(b)
	l.size += int64(n)
	return n, err
}

func (l *lazyFile) close() {
	if l.f != nil {
		l.f.Close()
	}
}

// nodeErrors are the trials of programs in any language that failed (a
// node misbehaved: NODE-PROTOCOL.md, "Mistakes"), gathered from rows
// handed over one at a time: their count and the lines report lists.
type nodeErrors struct {
	bad   int
	lines []string
}

// nodeErrorsListed bounds the trials nodeErrors lists.
const nodeErrorsListed = 20

// add counts r when its node program failed.
func (n *nodeErrors) add(r *reports.Row) {
	if r.Error == "" {
		return
	}
	if a, _, err := nodes.Lookup(r.Algorithm); err == nil && a.External != nil {
		if n.bad++; n.bad <= nodeErrorsListed {
			n.lines = append(n.lines, fmt.Sprintf("  %s N=%d trial %d (seed %d, %s): %s\n", r.Algorithm, r.Nodes, r.Trial, r.Seed, r.Runtime, r.Error))
		}
	}
}

// report lists the failed trials and makes the run exit 1 when there is
// one; every row was written before.
func (n *nodeErrors) report(w io.Writer) error {
	if n.bad == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nnode programs failed in %d trial(s):\n", n.bad)
	for _, l := range n.lines {
		io.WriteString(w, l)
	}
	if n.bad > nodeErrorsListed {
		fmt.Fprintf(w, "  ... and %d more (the error column of results.csv lists every trial)\n", n.bad-nodeErrorsListed)
	}
	return failed(fmt.Errorf("%d trial(s) of node programs failed", n.bad))
}
