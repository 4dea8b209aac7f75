package main

import (
	"encoding/csv"
	"fmt"
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
		Incident: chaos.IsIncident, Leads: leaderKind}
	if m != nil {
		opt.Replay = replayCommand(*m)
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

// replayFlags are the run flags a replay command sets itself, or that do
// not change what a trial does.
var replayFlags = []string{"algo", "variant", "nodes", "trials", "seed", "runtime", "out", "format", "parallel",
	"resume", "trace", "history", "toxiproxy"}

// replayCommand returns the command that replays a trial of the run m
// describes: the same scenario or flags, its seed, and --trials up to the
// trial (trial t's seed depends only on the run's seed and t), with a
// trace for its diagram. A live trial replays with the same seeds and
// faults; its timing is the host's.
func replayCommand(m reports.Manifest) func(r *reports.Row) string {
	defaults := map[string]string{}
	newRunCmd().Flags().VisitAll(func(f *pflag.Flag) { defaults[f.Name] = f.DefValue })
	var shaping []string
	for _, nv := range m.Flags {
		name, value, _ := strings.Cut(nv, "=")
		if slices.Contains(replayFlags, name) || value == defaults[name] {
			continue
		}
		if name == "crash" {
			for _, c := range stringArray(value) {
				shaping = append(shaping, "--crash "+shellQuote(c))
			}
			continue
		}
		shaping = append(shaping, "--"+name+" "+shellQuote(value))
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
		algo := r.Algorithm
		if r.Variant != "" && r.Variant != "default" {
			algo += "/" + r.Variant
		}
		tail := fmt.Sprintf("--seed %d --trials %d --runtime %s --trace replay.jsonl --out replay", seed, r.Trial+1, r.Runtime)
		if r.Scenario == "adhoc" {
			parts := append([]string{"electbench run --algo " + shellQuote(algo) + " --nodes " + strconv.Itoa(r.Nodes)}, shaping...)
			return strings.Join(append(parts, tail), " ")
		}
		arg := scenarios[r.Scenario]
		if arg == "" {
			arg = r.Scenario
			if len(m.Scenarios) == 1 {
				arg, _, _ = strings.Cut(m.Scenarios[0], "=") // a file holding this scenario
			}
		}
		return "electbench run " + shellQuote(arg) + " " + tail
	}
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
