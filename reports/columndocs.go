package reports

import (
	"fmt"
	"slices"
	"strings"
)

// columnMeanings says what each column of Columns holds, in a sentence a
// reader of results.csv needs. It is the one source of README's column table
// (ColumnTable; TestReadmeColumnsAreCurrent fails when README differs), so a
// new column is described here when it is added to Columns.
var columnMeanings = map[string]string{
	"algorithm":         "the algorithm, as in `electbench list algorithms`",
	"variant":           "its variant, as in `electbench list algorithms`",
	"runtime":           "`sim` or `live`",
	"scenario":          "the scenario's name; `adhoc` for a run from flags",
	"nodes":             "cluster size N",
	"arrangement":       "how ids were placed: `random`, `ascending`, `descending`, `bit-reversal`, `anonymous`, a list, `pow(b)`",
	"initiators":        "who initiated, as given (`all` for algorithms where every process starts)",
	"trial":             "the trial's number within its configuration",
	"seed":              "the trial's own seed, derived from the run's seed and the trial",
	"messages":          "election messages sent, as the runtime saw them (maintenance kinds excluded)",
	"messages_by_kind":  "every message kind sent, maintenance included, as `KIND=n;KIND=n` in sorted kind order",
	"bytes":             "encoded bytes of all messages sent",
	"timeouts":          "expirations of the election's timers and detector suspicions (maintenance ticks are in `timeouts_by_kind` only)",
	"timeouts_by_kind":  "every timer and suspicion by kind, as `KIND=n;KIND=n`",
	"turnaround_s":      "first initiation → last election message delivered, in seconds",
	"turnaround_t":      "the same in units of T, the mean one-way latency (exact integers under the reference model)",
	"decided_s":         "first initiation → every non-faulty process knows the leader, in seconds",
	"decided_t":         "the same in units of T",
	"leader":            "the leader every non-faulty process decided (empty if they did not agree)",
	"correct":           "every non-faulty process decided the non-faulty process of highest rank (mutual exclusion: safe and live)",
	"safety_violations": "violations the checker recorded (`violation` describes the first)",
	"live":              "the election terminated before `--deadline` (mutual exclusion: every request entered the section by then)",
	"theory_messages":   "ALGORITHMS.md's exact figure for this configuration, where a closed form exists",
	"error":             "why the trial could not run or complete (a stopped trial: where its budget ran out)",
	"detect_s":          "where a leader crashes: crash → first suspicion, in seconds (quorum algorithms: → first ballot)",
	"failover_s":        "crash → every live process knows the new leader, in seconds (quorum algorithms: a majority)",
	"failover_t":        "the same in units of T",
	"terms":             "quorum algorithms: terms or epochs used",
	"split_votes":       "quorum algorithms: terms that ended without a winner",
	"theory_bound":      "ALGORITHMS.md's upper bound on messages, where only a bound is known (Hirschberg–Sinclair)",
	"latency":           "the latency model, as given",
	"t_s":               "T, the latency model's mean one-way delay, in seconds",
	"events":            "events the runtime processed",
	"violation":         "the first safety or liveness violation, described",
	"faults":            "the fault schedule applied: `t=TIME:KIND(TARGETS)` entries joined by `;`",
	"expect":            "the scenario's per-trial expectations: empty, `pass`, `fail: ` and what failed, or, for a live trial outside its model in every attempt, `unjudged: …` and what the verdict would have been (counted in no expectation)",
	"term_leaders":      "quorum algorithms: which process won which term, `TERM=POSITION;...` in the order terms began, `-` for a term nobody won",
	"anonymous_refused": "live: connections the nodes refused that proved no identity, blamed on no node",
	"d_s":               "D, the latency model's delay bound (its largest delay, or p99.9 without one), in seconds: the unit of timeouts written as `2D`",
	"budget":            "the budget a stopped trial exhausted, `events` or `inflight` (`--max-events`, `--max-inflight`); empty otherwise",
	"delay_mean_s":      "the mean one-way delay of the election messages: the simulator's model as it drew them; live, measured from send to delivery on the host's one monotonic clock",
	"delay_p99_s":       "their p99 one-way delay, measured the same way",
	"turnaround_tm":     "turnaround in units of `delay_mean_s`, the T the network actually gave (`turnaround_t` divides by the configured T)",
	"entries":           "mutual exclusion: passages through the critical section",
	"entry_messages":    "mutual exclusion: messages of the kinds spent to enter, per entry",
	"exit_messages":     "mutual exclusion: messages of the kinds spent to leave, per exit (empty for an algorithm that has none)",
	"client_delay_s":    "mutual exclusion: mean time from a request to its entry, in seconds",
	"client_delay_t":    "the same in units of T",
	"sync_delay_s":      "mutual exclusion: mean time from an exit to the next entry of a process already waiting, in seconds",
	"sync_delay_t":      "the same in units of T",
	"throughput":        "mutual exclusion: exits per second from the first request to the last exit",
	"voting_set":        "mutual exclusion: K, how many other processes each asks (maekawa)",
	"overruns":          "election messages that took longer than the delay bound D the machines were given (live: plus the host allowance); for bully and multicast such a trial is outside the algorithm's model",
	"reruns":            "live: attempts at this trial run again, and not kept, because the host delayed a message of a bounded-delay algorithm past D (at most 2; DESIGN.md, \"Overruns and reruns\")",
	"elections":         "quorum algorithms: candidacies, a process's Ballot (REQUEST_VOTE, MsgVote, ...) in a term it had not balloted in; pre-votes are not elections (ALGORITHMS.md, \"Disruption\"). bully and multicast: steps in which a process sends ELECTION (all its ELECTION messages at one instant are one election); empty for the ring family",
	"disruptions":       "quorum algorithms only (the others have no terms): times a leader lost leadership, other than by crashing, while it still reached a majority: it and the followers that had last decided it and received one of its messages in the two heartbeats before its last, a majority (deposed, not cut off)",
	"leaderless_s":      "quorum algorithms: seconds, after a leader was first followed by a majority, during which no leading process was (a crash's failover counts, the first election does not). ring, bully and multicast: seconds, after every live process first believed one live leader, during which none was believed by every live process",
	"leaderless_t":      "leaderless_s in units of T",
	"stale_leader_s":    "quorum algorithms: seconds during which two or more processes were leading (sending their Leader messages), in any terms. ring, bully and multicast: seconds during which two or more live processes had decided themselves and not since another",
	"term_inflation":    "quorum algorithms only: how far the highest term (epoch) any process sent rose above the first leader's term",
	"heal_disruptions":  "quorum algorithms only: disruptions at or after the last fault healed; empty when no fault healed",
	"clock_error_s":     "live on several hosts (`--netns`): the bound, in seconds, on how far the harness's estimate of any host's clock offset may be from the truth (the offset from round trips in both directions, as NTP bounds it); every time is on the harness's clock within it, a figure between two hosts' events within twice it; empty on one host and in the simulator",
	"disputes":          "live: the refusals nodes reported of one another, `BY>OF` (BY said it refused OF's identity) or `BY>path(BY>OF)` (BY's link to OF met another identity: the path is at fault) joined by `;`; a node's word, kept as evidence: only the harness's own check excludes a node",
}

// ColumnTable is README's reference of results.csv's columns: one Markdown
// table row per entry of Columns, in order, with its meaning, after a line on
// which of them are stable. It fails when a column has no meaning or a
// meaning names no column.
func ColumnTable() (string, error) { return columnTable(Columns, columnMeanings) }

func columnTable(cols []string, meanings map[string]string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "The first %d columns, `%s` to `%s`, are stable: every results file starts\n",
		StableColumns, cols[0], cols[StableColumns-1])
	b.WriteString("with them, in this order; later ones are appended, never renamed.\n\n")
	b.WriteString("| column | meaning |\n|---|---|\n")
	for _, c := range cols {
		m, ok := meanings[c]
		if !ok {
			return "", fmt.Errorf("column %s has no meaning in columnMeanings", c)
		}
		fmt.Fprintf(&b, "| `%s` | %s |\n", c, m)
	}
	for name := range meanings {
		if !slices.Contains(cols, name) {
			return "", fmt.Errorf("columnMeanings describes %s, which is not in Columns", name)
		}
	}
	b.WriteString("\n") // a blank line ends the table before the end marker
	return b.String(), nil
}
