package chaos

import (
	"embed"
	"path"
	"slices"
	"strings"
	"sync"
)

// The built-in scenario files: the default run and the library of classic
// failure stories (scenarios/), and the incident library
// (scenarios/incidents/: failures that took real clusters down, each citing
// its source, docs/incidents.md). Each says in its comments what it
// demonstrates.
//
//go:embed scenarios/*.yaml scenarios/incidents/*.yaml
var builtin embed.FS

// incidentDir holds the incident library's files.
const incidentDir = "scenarios/incidents"

// Builtin returns the text of a built-in scenario file by name ("default",
// "ring-would-be-leader-crash", "raft-chain"), for `electbench scenario
// show` and for running it.
func Builtin(name string) ([]byte, bool) {
	for _, dir := range []string{"scenarios", incidentDir} {
		if b, err := builtin.ReadFile(path.Join(dir, name+".yaml")); err == nil {
			return b, true
		}
	}
	return nil, false
}

// BuiltinNames lists every built-in scenario file, incidents included,
// sorted.
func BuiltinNames() []string {
	out := append(builtinIn("scenarios"), builtinIn(incidentDir)...)
	slices.Sort(out)
	return out
}

// IncidentNames lists the incident library, sorted: the built-in scenarios
// `electbench scenario list` shows under their own heading.
func IncidentNames() []string { return builtinIn(incidentDir) }

// IsIncident reports whether name is of the incident library: one of its
// files, or a scenario one of them declares (cloudflare-2020-cut, the
// second phase in cloudflare-2020's file), as a row's scenario column
// names it.
func IsIncident(name string) bool { return slices.Contains(incidentScenarios(), name) }

// ReplaysIncident reports whether name is of the incident library
// (IsIncident) or a built-in scenario that replays one of its incidents
// against other algorithms, named <prefix>-<incident>
// (server-cloudflare-2020: etcd 3.4's servers):
// the report shows such a scenario's incident view (its matrix and
// leadership time-line) as it does the incident's own.
func ReplaysIncident(name string) bool {
	if IsIncident(name) {
		return true
	}
	if !slices.Contains(builtinIn("scenarios"), name) {
		return false
	}
	return slices.ContainsFunc(IncidentNames(), func(inc string) bool { return strings.HasSuffix(name, "-"+inc) })
}

// incidentScenarios are the incident library's file names and the names of
// the scenarios its files declare.
var incidentScenarios = sync.OnceValue(func() []string {
	names := IncidentNames()
	for _, file := range IncidentNames() {
		b, _ := Builtin(file)
		scs, _ := Parse(file, b) // every built-in parses (TestBuiltinsParse)
		for _, s := range scs {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	return names
})

// builtinIn lists the files of one directory of built-ins, sorted.
func builtinIn(dir string) []string {
	entries, err := builtin.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// BuiltinSummary is the first comment line of a built-in file.
func BuiltinSummary(name string) string {
	b, ok := Builtin(name)
	if !ok {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if s, ok := strings.CutPrefix(line, "# "); ok {
			return s
		}
	}
	return ""
}
