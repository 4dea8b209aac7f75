package main

import (
	"encoding/csv"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// htmlOptions are the report options every command that writes report.html
// shares: fault windows from the faults column, maintenance and leader
// kinds from the registry, the incident scenarios, and, given the run's
// manifest, a replay command per trial.
func htmlOptions(source string, m *reports.Manifest) reports.HTMLOptions {
	opt := reports.HTMLOptions{Source: source, Generator: "electbench " + versionString(), Faults: reports.FaultWindows,
		Maintenance: func(kind string) bool {
			k, ok := nodes.KindByName(kind)
			return ok && !k.IsElection()
		},
		Incident: chaos.ReplaysIncident, Leads: leaderKind, IDs: rowIDs}
	if m != nil {
		opt.Replay = replayCommand(*m)
		opt.Descriptions = m.Descriptions
	}
	return opt
}

// leaderKind reports whether kind is a message only the leader of a quorum
// algorithm sends, with its term (nodes.Quorum.IsLeader).
func leaderKind(algorithm, kind string) bool {
	a, _, err := nodes.Lookup(algorithm)
	if err != nil || a.Quorum == nil {
		return false
	}
	k, ok := nodes.KindByName(kind)
	return ok && a.Quorum.IsLeader(k)
}

// replayFlags are the run flags a replay command sets itself (the ad-hoc
// run's algorithm and size, narrowed to the trial's; its output and
// trace), or that do not change what a trial does.
var replayFlags = []string{"algo", "variant", "nodes", "out", "format", "parallel",
	"resume", "trace", "history", "toxiproxy", "shard", "shards", "trial"}

// replayCommand returns the command that runs one trial of the run m
// describes again, alone (run --trial): the same scenario, or for an
// ad-hoc run the trial's algorithm and size, and the other flags the run
// typed (those the manifest names as typed; a manifest of an older
// version, which does not, those whose value differs from the default),
// with a trace for its diagram. A live trial replays with the same seeds
// and faults; its timing is the host's.
func replayCommand(m reports.Manifest) func(r *reports.Row) string {
	run := newRunCmd().Flags()
	typed := func(name, value, def string) bool {
		if m.Typed != nil {
			return slices.Contains(m.Typed, name)
		}
		return value != def
	}
	var shaping []string
	for _, nv := range m.Flags {
		name, value, _ := strings.Cut(nv, "=")
		f := run.Lookup(name)
		if f == nil || slices.Contains(replayFlags, name) || !typed(name, value, f.DefValue) {
			continue // a flag run does not have (help) is not the run's to repeat
		}
		shaping = append(shaping, flagArgs(f, value)...)
	}
	scenarios := map[string]string{} // scenario name → how the run named it
	for _, s := range m.Scenarios {
		arg, _, _ := strings.Cut(s, "=")
		scenarios[arg] = arg
	}
	return func(r *reports.Row) string {
		seed, ok := uint64(0), false
		for _, s := range append([]uint64{m.Seed}, m.Seeds...) {
			if workloads.TrialSeed(s, r.Trial) == r.Seed {
				seed, ok = s, true
				break
			}
		}
		if !ok {
			return ""
		}
		var args []string
		if r.Scenario == "adhoc" {
			algo := r.Algorithm
			if r.Variant != "" && r.Variant != "default" {
				algo += "/" + r.Variant
			}
			args = []string{"--algo", shellQuote(algo), "--nodes", strconv.Itoa(r.Nodes)}
		} else {
			arg := scenarios[r.Scenario]
			if arg == "" {
				arg = r.Scenario
				if len(m.Scenarios) == 1 {
					arg, _, _ = strings.Cut(m.Scenarios[0], "=") // a file holding this scenario
				}
			}
			args = []string{shellQuote(arg)}
		}
		// --seed is kept apart from the flags (a nightly run varies it):
		// the trial's scenario took the run's unless it is its file's own.
		def := strconv.FormatUint(defaultRunOptions().seed, 10)
		if seed == m.Seed && typed("seed", strconv.FormatUint(seed, 10), def) {
			args = append(args, "--seed", strconv.FormatUint(seed, 10))
		}
		args = append(args, shaping...)
		args = append(args, "--trial", shellQuote(trialID(r)), "--out", "replay")
		return "electbench run " + strings.Join(args, " ")
	}
}

// flagArgs renders a run flag set to value as it is typed: a string array
// (--crash) once per element, a boolean as --name or --name=false (a
// separate "true" would be read as a scenario file).
func flagArgs(f *pflag.Flag, value string) []string {
	switch f.Value.Type() {
	case "stringArray":
		var out []string
		for _, v := range stringArray(value) {
			out = append(out, "--"+f.Name, shellQuote(v))
		}
		return out
	case "bool":
		if value == "true" {
			return []string{"--" + f.Name}
		}
		return []string{"--" + f.Name + "=" + value}
	}
	return []string{"--" + f.Name, shellQuote(value)}
}

// stringArray reads pflag's rendering of a string array, "[a,b]" in CSV.
func stringArray(v string) []string {
	v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
	if v == "" {
		return nil
	}
	rec, err := csv.NewReader(strings.NewReader(v)).Read()
	if err != nil {
		return []string{v}
	}
	return rec
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
