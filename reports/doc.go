// Package reports turns trial results into files people and nightly jobs
// read: one Row per trial, streamed to results.csv (and JSON Lines) as each
// trial ends, and summaries grouped by algorithm, variant, runtime, scenario
// and size. It knows rows, not runtimes.
package reports
