package workloads

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/trial"
)

// LinkLatency overrides the latency model of some links (a scenario's
// network.links).
type LinkLatency struct {
	From, To chaos.Selector // zero: all
	Latency  trial.Latency
}

// FromScenario turns a parsed scenario into a validated spec. Every error
// names the scenario file, line and field (a chaos.Errors); nothing runs.
func FromScenario(sc *chaos.Scenario) (*Spec, error) {
	var errs chaos.Errors
	fail := func(field, format string, args ...any) {
		if len(errs) < chaos.MaxErrors {
			errs = append(errs, sc.Errorf(field, format, args...))
		}
	}
	spec := &Spec{Scenario: sc.Name, Description: sc.Description, Trials: sc.Trials, Seed: sc.Seed, Expect: sc.Expect, Runtime: sc.Runtime}
	lat, err := trial.ParseLatency(sc.Network.Latency)
	if err != nil {
		fail("network.latency", "%v", err)
		lat = trial.Constant(1) // keep checking the rest with some T
	}
	spec.Latency = lat
	T := lat.Mean()
	for i, l := range sc.Network.Links {
		m, err := trial.ParseLatency(l.Latency)
		if err != nil {
			fail(fmt.Sprintf("network.links[%d].latency", i), "%v", err)
			continue
		}
		spec.LinkLatency = append(spec.LinkLatency, LinkLatency{From: l.From, To: l.To, Latency: m})
	}
	spec.Algos = scenarioAlgos(sc, fail)
	checkColumnConditions(sc.Expect.Columns, spec.Algos, fail)
	if spec.Nodes, err = ParseNodes(sc.Nodes); err != nil {
		fail("nodes", "%s", unflag(err))
	}
	if spec.IDs, err = ParseIDs(sc.IDs); err != nil {
		fail("ids", "%s", unflag(err))
	}
	if spec.RankBy, err = ParseRankBy(sc.Rank); err != nil {
		fail("rank", "%s", unflag(err))
	}
	if spec.Initiators, err = ParseInitiators(sc.Initiators); err != nil {
		fail("initiators", "%s", unflag(err))
	}
	if spec.Detector, err = trial.ParseDetector(sc.Detector, lat); err != nil {
		fail("detector", "%v", err)
	}
	if spec.Detector.Kind == "perfect" {
		// The false-suspicion window means nothing to a perfect detector;
		// clearing it lets perfect(10T) equal the runtime's default, under
		// which the reference figures apply.
		spec.Detector.Window = 0
	}
	if !sc.Deadline.IsZero() {
		if spec.Deadline = sc.Deadline.Of(T); spec.Deadline <= 0 {
			fail("deadline", "want a positive duration")
		}
	}
	for _, a := range spec.Algos {
		// Let each algorithm check its parameters once.
		if _, err := a.Alg.New(nodes.Config{Variant: a.Variant, Params: a.Params, N: 8, T: T, D: lat.Bound()}); err != nil {
			fail("algorithms", "%s: %v", a.Alg.Name, err)
		}
	}
	spec.Faults = sc.Faults
	for i := range sc.Faults {
		f := &sc.Faults[i]
		path := fmt.Sprintf("faults[%d]", i)
		for _, n := range spec.Nodes {
			if err := checkFault(f, n); err != nil {
				fail(path+"."+err.field, "%s", err.msg)
				break
			}
		}
	}
	if sc.Runtime == "live" || slices.ContainsFunc(spec.Algos, Algo.liveOnly) {
		checkLive(sc, spec, fail)
	}
	if spec.TraceHash = sc.TraceHash; sc.TraceHash != "" {
		checkTraceHash(sc, spec, fail)
	}
	if spec.Draws = sc.Draws; sc.Draws != nil {
		checkDraws(sc, spec, fail)
	}
	if sc.Hosts != nil {
		scenarioHosts(sc, spec, fail)
	}
	for i, l := range spec.LinkLatency {
		for _, n := range spec.Nodes {
			if err := errors.Join(l.From.Check(n), l.To.Check(n)); err != nil {
				fail(fmt.Sprintf("network.links[%d]", i), "%v", err)
				break
			}
		}
	}
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b *chaos.Error) int { return cmp.Or(a.Line-b.Line, a.Col-b.Col) })
		return nil, errs
	}
	if err := spec.Validate(); err != nil {
		return nil, chaos.Errors{sc.Errorf("", "%s", unflag(err))}
	}
	if err := validateRuntimes(spec); err != nil {
		return nil, chaos.Errors{sc.Errorf("runtime", "runtime live: %s", unflag(err))}
	}
	return spec, nil
}

// validateRuntimes checks the spec against the runtimes its trials run on:
// every algorithm live under runtime live; otherwise the live-only ones
// live (an algorithm runs on the runtimes it supports: a scenario's runtime
// chooses for those that run on both) and the others on the simulator,
// which refuses nothing a scenario can name once the live-only are apart.
func validateRuntimes(spec *Spec) error {
	if spec.Runtime == "live" {
		return spec.ValidateLive()
	}
	live := *spec
	live.Algos = slices.DeleteFunc(slices.Clone(spec.Algos), func(a Algo) bool { return !a.liveOnly() })
	if len(live.Algos) == 0 {
		return nil
	}
	return live.ValidateLive()
}

// liveOnly reports whether a runs only live (nodes.Algorithm.LiveOnly).
func (a Algo) liveOnly() bool { return a.Alg.LiveOnly != "" }

// scenarioAlgos are the algorithms a scenario names, each with its variant
// and checked parameters: every election algorithm for "all", then those
// listed. fail is told of each that cannot run.
func scenarioAlgos(sc *chaos.Scenario, fail func(field, format string, args ...any)) []Algo {
	var algos []Algo
	if sc.AllAlgos {
		for _, a := range nodes.Algorithms() {
			if !a.InAll() {
				continue // "all" means every asynchronous election algorithm
			}
			algos = append(algos, Algo{Alg: a, Variant: a.Variants[0].Name, Params: nodes.Params{}, UpTo: a.AllUpTo})
		}
	}
	for i, a := range sc.Algorithms {
		path := fmt.Sprintf("algorithms[%d]", i)
		name := a.Name
		if a.Variant != "" {
			name += "/" + a.Variant
		}
		alg, variant, err := lookupOrDefine(sc, a, name)
		if err != nil {
			fail(path, "%v", err)
			continue
		}
		params := nodes.Params{}
		for k, v := range a.Params {
			params[k] = v
		}
		if err := alg.CheckParams(params); err != nil {
			fail(path+".params", "%v", err)
			continue
		}
		algos = append(algos, Algo{Alg: alg, Variant: variant, Params: params})
	}
	return algos
}

// checkColumnConditions reports a condition of expect.columns naming an
// algorithm or a variant the scenario does not run: it would judge no trial.
func checkColumnConditions(cs []chaos.ColumnCondition, algos []Algo, fail func(field, format string, args ...any)) {
	for i, c := range cs {
		path := fmt.Sprintf("expect.columns[%d]", i)
		var names, variants []string
		for _, a := range algos {
			names = append(names, a.Alg.Name)
			if c.Algorithm == "" || c.Algorithm == a.Alg.Name {
				variants = append(variants, a.Variant)
			}
		}
		slices.Sort(names)
		slices.Sort(variants)
		switch {
		case c.Algorithm != "" && !slices.Contains(names, c.Algorithm):
			fail(path+".algorithm", "the scenario runs no algorithm %q (it runs: %s)", c.Algorithm, strings.Join(slices.Compact(names), ", "))
		case c.Variant != "" && !slices.Contains(variants, c.Variant):
			of := ""
			if c.Algorithm != "" {
				of = " of " + c.Algorithm
			}
			fail(path+".variant", "the scenario runs no variant %q%s (it runs: %s)", c.Variant, of, strings.Join(slices.Compact(variants), ", "))
		}
	}
}

// checkTraceHash refuses a trace-hash where it names no one trace: it is
// the fingerprint of a single simulated trial.
func checkTraceHash(sc *chaos.Scenario, spec *Spec, fail func(field, format string, args ...any)) {
	switch {
	case sc.Runtime == "live" || slices.ContainsFunc(spec.Algos, Algo.liveOnly):
		fail("trace-hash", "a live trial's trace is not reproducible: trace-hash applies to the simulator")
	case spec.Trials != 1 || len(spec.Algos) != 1 || len(spec.Nodes) != 1:
		fail("trace-hash", "a trace hash names one trial: the scenario needs trials: 1, one algorithm and one size (it has %d trial(s), %d algorithm(s), %d size(s))",
			spec.Trials, len(spec.Algos), len(spec.Nodes))
	}
}

// checkDraws refuses draws where they name no one trial's streams: a
// single simulated trial, with no more process lists than processes.
func checkDraws(sc *chaos.Scenario, spec *Spec, fail func(field, format string, args ...any)) {
	switch {
	case sc.Runtime == "live":
		fail("draws", "a live trial draws from its processes' own clocks and sockets: draws apply to the simulator")
	case spec.Trials != 1 || len(spec.Algos) != 1 || len(spec.Nodes) != 1:
		fail("draws", "draws are one trial's: the scenario needs trials: 1, one algorithm and one size (it has %d trial(s), %d algorithm(s), %d size(s))",
			spec.Trials, len(spec.Algos), len(spec.Nodes))
	case len(sc.Draws.Procs) > spec.Nodes[0]:
		fail("draws.processes", "%d lists for %d processes: at most one a process", len(sc.Draws.Procs), spec.Nodes[0])
	}
}

type fieldError struct{ field, msg string }

// checkFault reports a fault that cannot apply to a cluster of n: a
// selector matching no process, or a crash of every process.
func checkFault(f *chaos.Fault, n int) *fieldError {
	for _, c := range []struct {
		field string
		sel   chaos.Selector
	}{{"target", f.Target}, {"from", f.From}, {"to", f.To}, {"observers", f.Observers}, {"shape", f.Shape.Of}} {
		if err := c.sel.Check(n); err != nil {
			return &fieldError{c.field, err.Error()}
		}
	}
	for i, g := range f.Groups {
		if err := g.Check(n); err != nil {
			return &fieldError{fmt.Sprintf("groups[%d]", i), err.Error()}
		}
	}
	return nil
}

// unflag rewrites a command-line parser's message for a file: "--nodes
// \"x\": ..." names a flag the file does not have.
func unflag(err error) string {
	s := err.Error()
	for _, f := range []string{"--nodes", "--ids", "--initiators", "--rank", "--crash", "--deadline", "--trials", "--latency", "--detector"} {
		s = strings.ReplaceAll(s, f+": ", "")
		s = strings.ReplaceAll(s, f+" ", "")
	}
	return s
}

// lookupOrDefine finds a scenario's algorithm by name, or defines it when
// the entry gives a program (docs/NODE-PROTOCOL.md), whose relative paths
// are resolved from the scenario file's directory.
func lookupOrDefine(sc *chaos.Scenario, a chaos.Algorithm, name string) (*nodes.Algorithm, string, error) {
	if a.Command == nil {
		return nodes.Lookup(name)
	}
	if a.Variant != "" {
		return nil, "", fmt.Errorf("program %s has no variants", a.Name)
	}
	alg, err := nodes.DefineExternal(nodes.ExternalDef{
		Name: a.Name, Command: a.Command, Dir: filepath.Dir(sc.File),
		Topology: a.Topology, Theory: a.Theory, Maintenance: a.Maintenance,
	})
	if err != nil {
		return nil, "", err
	}
	return alg, alg.Variants[0].Name, nil
}

// ParseScenarios parses a scenario file and builds a spec per scenario.
func ParseScenarios(file string, data []byte) ([]*Spec, error) {
	return ParseScenariosOn(file, data, "")
}

// ParseScenariosOn is ParseScenarios with every scenario run on the given
// runtime, "sim" or "live", whatever its file says ("" keeps the file's):
// the same story told by the simulator and by real processes. A scenario
// that cannot run live is refused as it would be with runtime: live.
func ParseScenariosOn(file string, data []byte, runtime string) ([]*Spec, error) {
	switch runtime {
	case "", "sim", "live":
	default:
		return nil, fmt.Errorf("runtime %q: want sim or live", runtime)
	}
	scs, err := chaos.Parse(file, data)
	if err != nil {
		return nil, err
	}
	var specs []*Spec
	var errs chaos.Errors
	for _, sc := range scs {
		if runtime != "" {
			sc.Runtime = runtime
		}
		spec, err := FromScenario(sc)
		var es chaos.Errors
		switch {
		case errors.As(err, &es):
			errs = append(errs, es...)
		case err != nil:
			return nil, err
		default:
			specs = append(specs, spec)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return specs, nil
}

// scenarioHosts keeps a scenario's hosts: section for the live harness,
// which decodes it (harness.ParseHosts) with its key paths relative to
// the scenario file; a trial the simulator runs has no hosts.
func scenarioHosts(sc *chaos.Scenario, spec *Spec, fail func(field, format string, args ...any)) {
	simulated := slices.ContainsFunc(spec.Algos, func(a Algo) bool { return !a.liveOnly() })
	if sc.Runtime != "live" && simulated {
		fail("hosts", "the section deals live nodes to hosts' agents, and this scenario runs on the simulator: give runtime: live")
		return
	}
	spec.Hosts, spec.HostsDir = sc.Hosts, filepath.Dir(sc.File)
}
