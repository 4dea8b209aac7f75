// Package reports turns trial results into files people and nightly jobs
// read: one Row per trial, streamed to results.csv (and JSON Lines) as each
// trial ends, and summaries grouped by algorithm, variant, runtime, scenario
// and size. It knows rows, not runtimes, and writes only to the files and
// io.Writers it is given.
//
// # Results
//
// A Writer (NewWriter) writes results.csv — the header is Columns, one line
// per Write — and, for the "json" format, results.jsonl with one object per
// row keyed by the same column names, numbers as JSON numbers, unset
// optional numbers null and the by-kind counts as objects. Each Write hands
// its line to the operating system before returning, so an interrupted run
// keeps every finished trial. Floats are written by FormatFloat: the shortest
// decimal that reads back exactly, never an exponent. With
// WriterOptions.Append the Writer resumes an earlier run's directory: it
// drops a last line cut short by a crash, upgrades an older header that is a
// prefix of Columns (rewriting the file record by record), refuses any other
// header, and reports the rows it kept
// (Writer.Existing) so the runner can skip their Keys.
//
// ReadCSV reads results back by header name; a bad cell is a ParseError
// naming its line and column. A command that shows figures of the rows
// reads them as a stream instead (Rows: ScanFile, FileRows), each row
// decoded in one reused place, and keeps the figures: a Row is 648 bytes
// against some 220 of CSV. ReadFile, which holds every row, serves those
// that want them all (tests, Go callers); no command does. merge reads each
// shard's file as a stream (ScanCSV) twice, to check every row and then to
// merge the shards in plan order, holding a row a shard; twin gathers each
// side as compare does (NewTwinSide, Twin over two CompareSides); explore
// keeps the one row of its trial (Explore.Rows).
//
// # Summaries
//
// Summarize groups rows by algorithm, variant, runtime, scenario and nodes
// in first-appearance order (Summarizer, over rows handed to it one at a
// time); WriteSummaryCSV and WriteSummaryJSON write
// summary.csv and summary.json, and WriteTable the short table the command
// line prints after a run. For messages, turnaround_t, turnaround_s and
// decided_t each group has the count, mean, median, 95th and 99th
// percentiles, minimum, maximum, sample standard deviation and a 95%
// confidence interval of the mean, over the trials without an error that
// report the figure. Trials with an error count in trials and errors and in
// the correct and live shares (as neither), but in no figure's statistics.
//
// The descriptive statistics come from github.com/montanaflynn/stats
// v0.14.0 (Library). Its Percentile interpolates linearly between the
// closest ranks, rank = p/100·(n−1) — Hyndman and Fan's type 7, the default
// of R, NumPy and Excel's PERCENTILE.INC — and its Median averages the two
// middle values of an even count. The confidence interval is
// mean ± t(0.975, n−1)·s/√n with Student's t quantile computed in this
// package, since the library has none. Every summary.csv line carries the
// method (Method) and library (Library) in its last two columns, and
// summary.json carries them at the top. Summary figures are rounded to 12
// significant digits so the files are byte-identical across CPUs. Each Stat
// also holds a distribution-free 95% interval of the median (MedianLow,
// MedianHigh: order statistics at binomial ranks), shown in the HTML report.
//
// # HTML
//
// WriteHTML renders rows (read once as a stream, and once more for the
// trials a trace draws) as report.html, one self-contained page that opens
// from disk without a network: charts as inline SVG drawn with
// gonum.org/v1/plot (messages against N on log scales with ALGORITHMS.md's
// curves, turnaround and decided distributions, timeouts), the verdicts with
// every failing trial's seed and violation, and, given the trace file of the
// run, the events around each violation and message-sequence diagrams of
// small trials. Where failover is shown, so are the disruption figures
// (ALGORITHMS.md, "Disruption") of the trials that have them. Rows of an
// incident scenario (HTMLOptions.Incident) open the page with the incident
// view: per configuration, each disruption figure as median [min, max]
// beside the conditions of the scenario's expected signature
// (HTMLOptions.Signatures), held or failed; and, given the trace, a
// time-line of one trial per configuration: a band per process while it
// sent the messages only a leader sends (HTMLOptions.Leads), labelled with
// their term. The same input gives the same bytes.
//
// # Comparison
//
// Compare judges two sets of rows group by group and metric with a
// two-sided Mann–Whitney U test and a minimum change of the median;
// WriteCompareText, WriteCompareJSON and WriteCompareHTML write the outcome.
//
// # History
//
// AddToHistory stores a run's results and Manifest under a history
// directory, ReadHistory and ScanPooled read them back (the base of a
// nightly comparison), and WriteHistoryIndex renders the trend page.
package reports
