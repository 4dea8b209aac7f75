package trial

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Latency is a link latency model: how long one message takes from send to
// delivery.
type Latency interface {
	// Mean is the mean one-way latency: the unit T of turnaround_t.
	Mean() time.Duration
	// Bound is the delay bound D, the unit of the timeouts that must
	// outlast a message's delay ("t1=2D"): the largest latency the model
	// draws, or, for a model with no largest value, its BoundQuantile.
	// For the reference model D = T.
	Bound() time.Duration
	// Sample draws one latency (never negative) from r.
	Sample(r *rand.Rand) time.Duration
	// Constant reports whether every sample equals Mean, so that delivery
	// order is send order.
	Constant() bool
	// String is the model as it would be written on the command line.
	String() string
}

// latencyModel parses the arguments of one named model.
type latencyModel struct {
	args    int
	summary string
	build   func(args []time.Duration) (Latency, error)
}

var latencyModels = map[string]latencyModel{}

func registerLatency(name string, args int, summary string, build func([]time.Duration) (Latency, error)) {
	latencyModels[name] = latencyModel{args: args, summary: summary, build: build}
}

// LatencyModels lists "name(args): summary" for every model, sorted.
func LatencyModels() []string {
	var out []string
	for name, m := range latencyModels {
		out = append(out, name+": "+m.summary)
	}
	slices.Sort(out)
	return out
}

var latencyRE = regexp.MustCompile(`^([a-z]+)\((.*)\)$`)

// ParseLatency reads a latency model: "1ms" (constant), "constant(1ms)",
// "uniform(1ms,5ms)", "normal(5ms,1ms)", "exponential(2ms)".
func ParseLatency(spec string) (Latency, error) {
	s := strings.TrimSpace(spec)
	name, argText := "constant", s
	if m := latencyRE.FindStringSubmatch(s); m != nil {
		name, argText = m[1], m[2]
	}
	model, ok := latencyModels[name]
	if !ok {
		var names []string
		for n := range latencyModels {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, fmt.Errorf("latency %q: unknown model %q (known: %s)", spec, name, strings.Join(names, ", "))
	}
	parts := strings.Split(argText, ",")
	if len(parts) != model.args {
		return nil, fmt.Errorf("latency %q: %s takes %d duration(s), got %d", spec, name, model.args, len(parts))
	}
	args := make([]time.Duration, len(parts))
	for i, p := range parts {
		d, err := time.ParseDuration(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("latency %q: argument %d: %q is not a duration such as 5ms", spec, i+1, strings.TrimSpace(p))
		}
		if d < 0 {
			return nil, fmt.Errorf("latency %q: argument %d is negative", spec, i+1)
		}
		args[i] = d
	}
	l, err := model.build(args)
	if err != nil {
		return nil, fmt.Errorf("latency %q: %w", spec, err)
	}
	if l.Mean() <= 0 {
		return nil, fmt.Errorf("latency %q: the mean latency must be positive (it is the unit T)", spec)
	}
	return l, nil
}
