package chaos

import (
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"

	yaml "go.yaml.in/yaml/v4"
)

// scenarioFields are the top-level fields of a scenario, in the order the
// reference page lists them.
var scenarioFields []field[Scenario]

func init() {
	scenarioFields = []field[Scenario]{
		{name: "name", typ: "text", required: true,
			doc: "the scenario's name: the `scenario` column of every row (letters, digits, `.`, `_`, `-`)",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.text(n, path); ok {
					if !validName(v) {
						d.errorf(n, path, "%q: a name is 1 to 64 letters, digits, '.', '_' and '-', starting with a letter or digit", v)
						return
					}
					s.Name = v
				}
			}},
		{name: "description", typ: "text", def: "none",
			doc: "what the scenario demonstrates, for people",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.text(n, path); ok {
					s.Description = v
				}
			}},
		{name: "runtime", typ: "sim or live", def: DefaultRuntime, auto: true,
			doc: "where it runs: the simulator, or real node processes behind Toxiproxy; a live-only algorithm runs live either way",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.text(n, path); ok {
					if v != "sim" && v != "live" {
						d.errorf(n, path, "want sim or live, got %q", v)
						return
					}
					s.Runtime = v
				}
			}},
		{name: "algorithms", typ: "`all`, or a list", required: true,
			doc: "the algorithms to run: each `name`, `name/variant`, or a mapping with `name`, `variant` and `params` (parameter values as on the command line: `t1: 1.5T`); `all` is every registered algorithm, each on the sizes it allows there (etcd-raft on at most 64 processes); a mapping with `command` and `topology` defines an algorithm in any language (NODE-PROTOCOL.md)",
			dec: decodeAlgorithms},
		{name: "nodes", typ: "sizes", def: DefaultNodes, auto: true,
			doc: "cluster sizes: `N`, `A..B` (doubling from A to B) or a list `[3, 5, 8]`",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.wordOrList(n, path); ok {
					s.Nodes = v
				}
			}},
		{name: "ids", typ: "arrangement", def: DefaultIDs, auto: true,
			doc: "identities by ring position: `random`, `ascending` (the successor has the larger id), `descending`, `bit-reversal` (the lower-bound ring: position i holds its bit-reversed index + 1), `anonymous` (every process the same id: the checker reports `symmetric` or the violation), a list `[5, 1, 4, 2, 3]`, or `pow(b[,hash])` for minted proof-of-work identities",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.wordOrList(n, path); ok {
					s.IDs = v
				}
			}},
		{name: "rank", typ: "id or epoch", def: DefaultRank, auto: true,
			doc: "rank processes by id, or by H(id ‖ a nonce drawn per trial)",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.text(n, path); ok {
					s.Rank = v
				}
			}},
		{name: "initiators", typ: "selection", def: DefaultInitiators, auto: true,
			doc: "who initiates at time 0: `all`, `max`, `successor-of-max`, `lowest`, `random(k)` or a list of positions (ignored by algorithms in which everyone starts)",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.wordOrList(n, path); ok {
					s.Initiators = v
				}
			}},
		{name: "network", typ: "mapping", def: "{latency: " + DefaultLatency + "}", auto: true,
			doc: "the network model (see Network)",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				decodeMapping(d, n, path, networkFields, &s.Network, nil)
			}},
		{name: "detector", typ: "detector", def: DefaultDetector, auto: true,
			doc: "the failure detector: `perfect(D)`, `heartbeat(P,τ)` or `inaccurate(λ,μ[,D[,W]])`; live (and with `--unit live`) a heartbeat detector's times written in T or D are read in the live unit, as the algorithms' parameters are",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.text(n, path); ok {
					s.Detector = v
				}
			}},
		{name: "trials", typ: "count", def: DefaultTrials, auto: true,
			doc: "trials per algorithm and size",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.integer(n, path, 1, 1_000_000); ok {
					s.Trials = int(v)
				}
			}},
		{name: "seed", typ: "count", def: DefaultSeed, auto: true,
			doc: "the run's seed; trial i uses a seed derived from it and i, recorded in its row",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.integer(n, path, 0, math.MaxInt64); ok {
					s.Seed = uint64(v)
				}
			}},
		{name: "deadline", typ: "duration", def: "100N+1000 T (k8s-lease: at least 3 retry periods)",
			doc: "virtual time after which an unfinished trial counts as not live",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.duration(n, path); ok {
					s.Deadline = v
				}
			}},
		{name: "faults", typ: "list", def: "none",
			doc: "the fault timeline: each item a fault (see Faults) or a `heal`",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				d.list(n, path, func(c *yaml.Node, p string) {
					if f, ok := decodeFault(d, c, p); ok {
						s.Faults = append(s.Faults, f)
					}
				})
				if len(s.Faults) > maxFaults {
					d.errorf(n, path, "%d faults: at most %d", len(s.Faults), maxFaults)
				}
			}},
		{name: "expect", typ: "mapping", def: "nothing",
			doc: "what must hold (see Expectations); a failure makes `electbench run` exit 1",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if decodeMapping(d, n, path, expectFields, &s.Expect, nil) && (s.Expect.NotLive || s.Expect.LiveShare > 0) && s.Expect.Correct {
					d.errorf(n, path, "liveness %s and correct always contradict each other: a trial that is not live is not correct", liveText(s.Expect))
				}
			}},
		{name: "trace-hash", typ: "text", def: "not checked",
			doc: "the sha256 (64 hex digits) of the trace of the scenario's one trial as `electbench run --trace` writes it; `run` and `replay` fail (exit 1) when the trial's trace differs. `electbench shrink` writes it (SHRINK.md)",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if v, ok := d.text(n, path); ok {
					if !traceHashRE.MatchString(v) {
						d.errorf(n, path, "%q: want a sha256 as 64 lowercase hex digits", v)
						return
					}
					s.TraceHash = v
				}
			}},
		{name: "draws", typ: "mapping", def: "none",
			doc: "the scenario's one trial's random draws, taken before the seed's: `network` (a list: the link delays' draws, in order) and `processes` (a list of lists: by position, each process's draws), each draw a whole number from 0 to 2^64-1, 1 the simplest (the least delay, the least timer). `electbench shrink` writes it (SHRINK.md); it applies to a simulated scenario of one trial",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				var dr trial.Draws
				if decodeMapping(d, n, path, drawsFields, &dr, nil) && (dr.Net != nil || dr.Procs != nil) {
					s.Draws = &dr
				}
			}},
		{name: "hosts", typ: "mapping", def: "none",
			doc: "live runs on hosts of their own: the fields of a hosts file (`controller`, `proxies`, `hosts`: multi-host.md), as `--hosts FILE` reads them, key paths relative to the scenario file; the nodes are dealt to the hosts' agents in blocks. Not with `--hosts` or `--netns`; refused on the simulator",
			dec: func(d *decoder, n *yaml.Node, path string, s *Scenario) {
				if n.Kind != yaml.MappingNode {
					d.errorf(n, path, "want a mapping: the fields of a hosts file (controller, proxies, hosts)")
					return
				}
				b, err := yaml.Marshal(n)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				s.Hosts = b
			}},
	}
}

var traceHashRE = regexp.MustCompile(`^[0-9a-f]{64}$`)

// maxFaults bounds a timeline.
const maxFaults = 1000

var networkFields = []field[Network]{
	{name: "latency", typ: "latency model", def: DefaultLatency, auto: true,
		doc: "every link's latency: `1ms` (constant: the reference model), `uniform(a,b)`, `normal(mean,sd)`, `exponential(mean)`; its mean is the unit T. On a server algorithm (SERVERS.md) it is drawn once a member, not a link: what the member's inbound proxy adds each way to every byte on the connections dialed to it (a constant or normal model: every link's one-way latency)",
		dec: func(d *decoder, n *yaml.Node, path string, nw *Network) {
			if v, ok := d.word(n, path); ok {
				nw.Latency = v
			}
		}},
	{name: "links", typ: "list", def: "none",
		doc: "per-link overrides: each `from`, `to` (selectors, default all) and `latency` (a model)",
		dec: func(d *decoder, n *yaml.Node, path string, nw *Network) {
			d.list(n, path, func(c *yaml.Node, p string) {
				var l LinkLatency
				if decodeMapping(d, c, p, linkFields, &l, nil) {
					nw.Links = append(nw.Links, l)
				}
			})
		}},
}

var linkFields = []field[LinkLatency]{
	{name: "from", typ: "selector", def: "all", doc: "links from these processes",
		dec: func(d *decoder, n *yaml.Node, path string, l *LinkLatency) {
			if s, ok := d.selector(n, path); ok {
				l.From = s
			}
		}},
	{name: "to", typ: "selector", def: "all", doc: "links to these processes",
		dec: func(d *decoder, n *yaml.Node, path string, l *LinkLatency) {
			if s, ok := d.selector(n, path); ok {
				l.To = s
			}
		}},
	{name: "latency", typ: "latency model", required: true, doc: "their latency model (selectors resolve at the start)",
		dec: func(d *decoder, n *yaml.Node, path string, l *LinkLatency) {
			if v, ok := d.word(n, path); ok {
				l.Latency = v
			}
		}},
}

var expectFields = []field[Expect]{
	alwaysField("safety", "no trial records a safety violation: a wrong leader, two live leaders at once, two Normal processes disagreeing",
		func(e *Expect, b bool) { e.Safety = b }),
	alwaysField("correct", "every trial is correct (the `correct` column): every live process decided the same leader, the rightful one (the live process of highest rank; for a quorum algorithm one a majority believes); a trial can be safe and live and not correct, every process believing a leader that crashed",
		func(e *Expect, b bool) { e.Correct = b }),
	{name: "liveness", typ: "`within DURATION`, `at-least P%` or `never`", def: "not checked",
		doc: "`within DURATION`: in every trial every live process decides, the run comes to rest, and the last decision comes at most DURATION after the first initiation. `never`: no trial is live, the outcome the scenario's faults force (a halves partition of an even cluster leaves no majority): reports show such trials as expected, in grey, not as failures, and a live one fails the expectation. `at-least P%`: per algorithm, variant and size at least P% of the trials are live, judged over the trials; the others, with no leader by the deadline, are shown as expected (Raft's Figure 16 at 150–151 ms, whose split votes can outlast any deadline)",
		dec: func(d *decoder, n *yaml.Node, path string, e *Expect) {
			if v, ok := d.text(n, path); ok {
				if strings.TrimSpace(v) == "never" {
					e.NotLive = true
					return
				}
				if strings.HasPrefix(strings.TrimSpace(v), "at-least") {
					share, text, err := parseLiveShare(v)
					if err != nil {
						d.errorf(n, path, "%v", err)
						return
					}
					e.LiveShare, e.LiveShareText = share, text
					return
				}
				l, err := parseLiveness(v)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				e.Liveness = l
			}
		}},
	{name: "messages", typ: "`at-most N` or `at-most theory*K`", def: "not checked",
		doc: "every trial sends at most N election messages, or K times ALGORITHMS.md's fault-free figure (exact count, else bound) for its configuration; a trial without a figure fails this check",
		dec: func(d *decoder, n *yaml.Node, path string, e *Expect) {
			if v, ok := d.text(n, path); ok {
				c, err := parseMessageCap(v)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				e.Messages = c
			}
		}},
	{name: "turnaround", typ: "`pQ < DURATION`", def: "not checked",
		doc: "per algorithm and size, the Q-th percentile of turnaround over the trials is below DURATION (a trial that never finished counts as infinitely slow)",
		dec: func(d *decoder, n *yaml.Node, path string, e *Expect) {
			if v, ok := d.text(n, path); ok {
				p, err := parsePercentile(v)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				e.Turnaround = p
			}
		}},
	{name: "columns", typ: "list", def: "none",
		doc: "conditions on numeric columns of results.csv, each judged per algorithm, variant and size on the median, minimum or maximum over the trials (see Conditions on columns)",
		dec: func(d *decoder, n *yaml.Node, path string, e *Expect) {
			d.list(n, path, func(c *yaml.Node, p string) {
				var cc ColumnCondition
				if !decodeMapping(d, c, p, columnFields, &cc, nil) {
					return
				}
				if !hasKey(c, string(Median), string(Min), string(Max)) {
					d.errorf(c, p, "a condition needs median, min or max")
				}
				if cc.Column != "" && len(cc.Bounds) > 0 {
					e.Columns = append(e.Columns, cc)
				}
			})
		}},
}

// columnFields are the fields of an item of expect.columns.
var columnFields = []field[ColumnCondition]{
	{name: "algorithm", typ: "text", def: "every algorithm",
		doc: "the algorithm whose trials are judged, one the scenario runs",
		dec: func(d *decoder, n *yaml.Node, path string, c *ColumnCondition) {
			if v, ok := d.text(n, path); ok {
				c.Algorithm = v
			}
		}},
	{name: "variant", typ: "text", def: "every variant",
		doc: "the variant whose trials are judged, one the scenario runs (etcd-raft's default is `etcd`)",
		dec: func(d *decoder, n *yaml.Node, path string, c *ColumnCondition) {
			if v, ok := d.text(n, path); ok {
				c.Variant = v
			}
		}},
	{name: "column", typ: "text", required: true,
		doc: "a numeric column of results.csv (README's column table): `terms`, `safety_violations`, `failover_t`, ...; trials whose cell is empty are left out",
		dec: func(d *decoder, n *yaml.Node, path string, c *ColumnCondition) {
			v, ok := d.text(n, path)
			switch {
			case !ok:
			case !slices.Contains(reports.Columns, v):
				d.errorf(n, path, "unknown column %q%s", v, suggest(v, reports.Columns))
			case !reports.NumericColumn(v):
				d.errorf(n, path, "column %q does not hold a number", v)
			default:
				c.Column = v
			}
		}},
	boundField(Median, "the median over the trials (the mean of the middle two of an even count)"),
	boundField(Min, "the smallest value over the trials"),
	boundField(Max, "the largest value over the trials"),
}

// alwaysField is an expectation written `always`, that every trial has a
// property (safety, correct).
func alwaysField(name, doc string, set func(e *Expect, b bool)) field[Expect] {
	return field[Expect]{name: name, typ: "`always`", def: "not checked", doc: doc,
		dec: func(d *decoder, n *yaml.Node, path string, e *Expect) {
			if v, ok := d.text(n, path); ok {
				b, err := parseAlways(v)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				set(e, b)
			}
		}}
}

// hasKey reports whether the mapping n has one of the keys.
func hasKey(n *yaml.Node, keys ...string) bool {
	for i := 0; i < len(n.Content); i += 2 {
		if slices.Contains(keys, n.Content[i].Value) {
			return true
		}
	}
	return false
}

// boundField is the field of a column condition that bounds one statistic.
func boundField(stat Stat, what string) field[ColumnCondition] {
	return field[ColumnCondition]{name: string(stat), typ: "comparison", def: "not checked",
		doc: what + " meets this: a number (`0`: equal), `\">=3\"`, `\"<2.5\"` (also `<=`, `>`) or a range `\"1..4\"`",
		dec: func(d *decoder, n *yaml.Node, path string, c *ColumnCondition) {
			if v, ok := d.word(n, path); ok {
				cmp, err := ParseComparison(v)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				c.Bounds = append(c.Bounds, Bound{Stat: stat, Cmp: cmp})
			}
		}}
}

func decodeAlgorithms(d *decoder, n *yaml.Node, path string, s *Scenario) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Value == "all" {
		s.AllAlgos = true
		return
	}
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want all or a list of algorithms, got %s", describe(n))
		return
	}
	d.list(n, path, func(c *yaml.Node, p string) {
		var a Algorithm
		if c.Kind == yaml.ScalarNode {
			v, ok := d.text(c, p)
			if !ok {
				return
			}
			a.Name, a.Variant, _ = strings.Cut(strings.TrimSpace(v), "/")
		} else if !decodeMapping(d, c, p, algorithmFields, &a, nil) {
			return
		}
		if a.Name == "" {
			return
		}
		if a.Command == nil && (a.Topology != "" || a.Theory != "" || a.Maintenance != nil) {
			d.errorf(c, p, "topology, theory and maintenance describe a program: they need command")
			return
		}
		if a.Command != nil && a.Topology == "" {
			d.errorf(c, join(p, "topology"), "a program needs its topology: ring, bidirectional-ring or complete")
			return
		}
		s.Algorithms = append(s.Algorithms, a)
	})
}

var algorithmFields = []field[Algorithm]{
	{name: "name", typ: "text", required: true, doc: "a registered algorithm (`electbench list algorithms`)",
		dec: func(d *decoder, n *yaml.Node, path string, a *Algorithm) {
			if v, ok := d.text(n, path); ok {
				a.Name = v
			}
		}},
	{name: "variant", typ: "text", def: "the algorithm's first", doc: "one of its variants",
		dec: func(d *decoder, n *yaml.Node, path string, a *Algorithm) {
			if v, ok := d.text(n, path); ok {
				a.Variant = v
			}
		}},
	{name: "params", typ: "mapping", def: "none", doc: "its parameters, each `name: value` (durations as `5ms`, `2T` or `2D`)",
		dec: func(d *decoder, n *yaml.Node, path string, a *Algorithm) {
			if n.Kind != yaml.MappingNode {
				d.errorf(n, path, "want a mapping of parameters, got %s", describe(n))
				return
			}
			a.Params = map[string]string{}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				key, ok := d.text(k, path)
				if !ok {
					continue
				}
				if _, dup := a.Params[key]; dup {
					d.errorf(k, join(path, key), "set twice")
					continue
				}
				d.at(v, join(path, key))
				if val, ok := d.word(v, join(path, key)); ok {
					a.Params[key] = val
				}
			}
		}},
	{name: "command", typ: "a list of words", def: "none", doc: "a program in any language run once per node (NODE-PROTOCOL.md), as `[python3, cr.py]`; relative paths are from the scenario file's directory",
		dec: func(d *decoder, n *yaml.Node, path string, a *Algorithm) {
			if a.Command = textList(d, n, path); a.Command != nil && len(a.Command) == 0 {
				d.errorf(n, path, "an empty command")
			}
		}},
	{name: "topology", typ: "text", def: "none", doc: "with command: `ring`, `bidirectional-ring` or `complete`",
		dec: func(d *decoder, n *yaml.Node, path string, a *Algorithm) {
			if v, ok := d.text(n, path); ok {
				switch v {
				case "ring", "bidirectional-ring", "complete":
					a.Topology = v
				default:
					d.errorf(n, path, "want ring, bidirectional-ring or complete, got %q", v)
				}
			}
		}},
	{name: "theory", typ: "text", def: "none", doc: "with command: a built-in algorithm whose reference figures fill theory_messages",
		dec: func(d *decoder, n *yaml.Node, path string, a *Algorithm) {
			if v, ok := d.text(n, path); ok {
				a.Theory = v
			}
		}},
	{name: "maintenance", typ: "a list of words", def: "none", doc: "with command: message types that are not election messages (besides those the nodes declare in init_ok)",
		dec: func(d *decoder, n *yaml.Node, path string, a *Algorithm) {
			a.Maintenance = textList(d, n, path)
		}},
}

// textList reads a list of words; nil after an error.
func textList(d *decoder, n *yaml.Node, path string) []string {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "want a list such as [python3, cr.py], got %s", describe(n))
		return nil
	}
	out := []string{}
	ok := true
	d.list(n, path, func(c *yaml.Node, p string) {
		v, good := d.text(c, p)
		ok = ok && good
		out = append(out, v)
	})
	if !ok {
		return nil
	}
	return out
}

// decodeFault reads one timeline item: a fault, or a heal.
func decodeFault(d *decoder, n *yaml.Node, path string) (Fault, bool) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "want a fault (a mapping with kind) or a heal, got %s", describe(n))
		return Fault{}, false
	}
	var kindNode, healNode *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch n.Content[i].Value {
		case "kind":
			kindNode = n.Content[i+1]
		case "heal":
			healNode = n.Content[i+1]
		}
	}
	f := Fault{Line: n.Line}
	switch {
	case kindNode != nil && healNode != nil:
		d.errorf(healNode, join(path, "heal"), "an item is a fault (kind) or a heal, not both")
		return Fault{}, false
	case healNode != nil:
		var h Trigger
		f.Heal = &h
		decodeMapping(d, n, path, healFields, &f, nil)
		return f, true
	case kindNode == nil:
		d.errorf(n, join(path, "kind"), "required field missing (a fault needs a kind: %s; or write heal: NAME)", strings.Join(kindNames(), ", "))
		return Fault{}, false
	}
	name, ok := d.text(kindNode, join(path, "kind"))
	if !ok {
		return Fault{}, false
	}
	k, ok := kinds[name]
	if !ok {
		d.errorf(kindNode, join(path, "kind"), "unknown fault kind %q%s", name, suggest(name, kindNames()))
		return Fault{}, false
	}
	f.Kind = name
	decodeMapping(d, n, path, faultFields(k), &f, func(key string) string { return explainField(k, key) })
	return f, true
}

// healFields are the fields of a heal item.
var healFields = []field[Fault]{
	{name: "heal", typ: "text", required: true, doc: "the name of the fault to heal",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if v, ok := d.text(n, path); ok {
				f.Name = v
			}
		}},
	{name: "at", typ: "trigger", def: "start", doc: "when: as a fault's `at`",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if s, ok := d.word(n, path); ok {
				t, err := ParseTrigger(s)
				if err != nil {
					d.errorf(n, path, "%v", err)
					return
				}
				*f.Heal = t
			}
		}},
	{name: "after-messages", typ: "count", def: "none", doc: "heal right after the K-th election message",
		dec: func(d *decoder, n *yaml.Node, path string, f *Fault) {
			if k, ok := d.integer(n, path, 1, 1<<62); ok {
				*f.Heal = Trigger{Kind: AfterMessages, K: k}
			}
		}},
}

// ScenarioFields documents the top-level fields.
func ScenarioFields() []FieldDoc { return docs(scenarioFields) }

// NetworkFields documents the network model's fields.
func NetworkFields() []FieldDoc { return docs(networkFields) }

// LinkFields documents a per-link latency override.
func LinkFields() []FieldDoc { return docs(linkFields) }

// AlgorithmFields documents an algorithm written as a mapping.
func AlgorithmFields() []FieldDoc { return docs(algorithmFields) }

// ExpectFields documents the expectations.
func ExpectFields() []FieldDoc { return docs(expectFields) }

// ColumnFields documents an item of expect.columns.
func ColumnFields() []FieldDoc { return docs(columnFields) }

// HealFields documents a heal item.
func HealFields() []FieldDoc { return docs(healFields) }
