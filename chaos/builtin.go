package chaos

import (
	"embed"
	"path"
	"slices"
	"strings"
)

// The built-in scenario files: the default run and the library of classic
// failure stories. Each says in its comments what it demonstrates.
//
//go:embed scenarios/*.yaml
var builtin embed.FS

// Builtin returns the text of a built-in scenario file by name ("default",
// "ring-would-be-leader-crash"), for `electbench scenario show` and for
// running it.
func Builtin(name string) ([]byte, bool) {
	b, err := builtin.ReadFile(path.Join("scenarios", name+".yaml"))
	return b, err == nil
}

// BuiltinNames lists the built-in scenario files, sorted.
func BuiltinNames() []string {
	entries, err := builtin.ReadDir("scenarios")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
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
