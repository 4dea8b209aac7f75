package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/pow"
	"github.com/electbench/electbench/reports"
)

func init() { commands = append(commands, newPowCmd) }

func newPowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pow",
		Short: "Mint, verify and study proof-of-work identities",
		Long: `Proof-of-work identities (ALGORITHMS.md, "Identities"): an Ed25519 key pair
whose id H(public key) solves a static puzzle (b leading zero bits of H(id))
and optionally a dynamic one (c leading zero bits of H(id ⊕ X)). H is sha256,
blake2b-256, sha3-256 or argon2id, optionally iterated k times.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newPowMintCmd(), newPowVerifyCmd(), newPowBenchCmd(), newPowGrindCmd())
	return cmd
}

// powParamFlags are the puzzle flags shared by mint and grind.
type powParamFlags struct {
	hash         string
	iterations   int
	bits         int
	dynBits      int
	argonTime    uint32
	argonMemory  uint32
	argonThreads uint8
}

func defaultPowParamFlags(bits int) powParamFlags {
	a := pow.DefaultArgon2()
	return powParamFlags{hash: string(pow.SHA256), iterations: 1, bits: bits,
		argonTime: a.Time, argonMemory: a.MemoryKiB, argonThreads: a.Threads}
}

func (o *powParamFlags) bind(cmd *cobra.Command, dynamic bool) {
	f := cmd.Flags()
	var names []string
	for _, h := range pow.Hashes() {
		names = append(names, string(h))
	}
	f.StringVar(&o.hash, "hash", o.hash, "hash function H: "+strings.Join(names, ", "))
	f.IntVar(&o.iterations, "iterations", o.iterations, "iterations k of H: H(H(…H(x)))")
	f.IntVar(&o.bits, "bits", o.bits, "static puzzle: leading zero bits b of H(id); costs 2^b key pairs")
	if dynamic {
		f.IntVar(&o.dynBits, "dyn-bits", o.dynBits, "dynamic puzzle: leading zero bits c of H(id ⊕ X); costs 2^c hashes (0: none)")
	}
	f.Uint32Var(&o.argonTime, "argon2-time", o.argonTime, "argon2id: passes over memory")
	f.Uint32Var(&o.argonMemory, "argon2-memory", o.argonMemory, "argon2id: memory per hash, KiB")
	f.Uint8Var(&o.argonThreads, "argon2-threads", o.argonThreads, "argon2id: lanes per hash")
}

// params turns the flags into validated parameters, or a bad-input error
// naming the flag.
func (o *powParamFlags) params() (pow.Params, error) {
	h, err := pow.ParseHash(o.hash)
	if err != nil {
		return pow.Params{}, badInputf("--hash: %w", err)
	}
	switch {
	case o.iterations < 1 || o.iterations > pow.MaxIterations:
		return pow.Params{}, badInputf("--iterations %d: want 1..%d", o.iterations, pow.MaxIterations)
	case o.bits < 0 || o.bits > pow.MaxBits:
		return pow.Params{}, badInputf("--bits %d: want 0..%d", o.bits, pow.MaxBits)
	case o.dynBits < 0 || o.dynBits > pow.MaxBits:
		return pow.Params{}, badInputf("--dyn-bits %d: want 0..%d", o.dynBits, pow.MaxBits)
	}
	p := pow.Params{Hash: h, Iterations: o.iterations, Bits: o.bits, DynBits: o.dynBits}
	if h == pow.Argon2id {
		p.Argon2 = pow.Argon2Params{Time: o.argonTime, MemoryKiB: o.argonMemory, Threads: o.argonThreads}
		if err := p.Argon2.Validate(); err != nil {
			return pow.Params{}, badInputf("--argon2-time/--argon2-memory/--argon2-threads: %w", err)
		}
	}
	if err := p.Validate(); err != nil {
		return pow.Params{}, badInput(err)
	}
	return p, nil
}

// powInterrupts returns a context cancelled by Ctrl-C or SIGTERM.
func powInterrupts(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return interrupts(cmd, "minting")
}

// powInterrupted maps a cancelled context to exit code 130.
func powInterrupted(err error) error {
	return &exitError{code: 130, err: fmt.Errorf("interrupted: %w", err)}
}

// powIsTerminal reports whether w is a terminal: progress is drawn only there.
func powIsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// powSI prints a rate compactly: 12.3k, 4.56M.
func powSI(x float64) string {
	switch {
	case x >= 1e9:
		return strconv.FormatFloat(x/1e9, 'f', 2, 64) + "G"
	case x >= 1e6:
		return strconv.FormatFloat(x/1e6, 'f', 2, 64) + "M"
	case x >= 1e3:
		return strconv.FormatFloat(x/1e3, 'f', 1, 64) + "k"
	default:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
}

// --- mint ---

type powMintOptions struct {
	powParamFlags
	out           string
	key           string
	force         bool
	workers       int
	progressEvery time.Duration
}

func newPowMintCmd() *cobra.Command {
	o := powMintOptions{powParamFlags: defaultPowParamFlags(16), progressEvery: 500 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "mint -o FILE [flags]",
		Short: "Mint an identity: FILE holds the public part, FILE.key the private key",
		Long: `Mint an identity on every core: try key pairs until H(id) has --bits leading
zero bits (2^b key pairs on average), then, with --dyn-bits, search a nonce.
FILE gets the identity (JSON, with the puzzle's parameters and proof); the
private key goes to a second file, PKCS #8 PEM, mode 0600. Existing files are
kept unless --force. Progress is shown on a terminal; Ctrl-C stops.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPowMint(cmd, o) },
	}
	o.bind(cmd, true)
	f := cmd.Flags()
	bindOutput(f, &o.out, "identity file to write (required)")
	f.StringVar(&o.key, "key", o.key, "private key file to write (default: the identity file's name + .key)")
	f.BoolVar(&o.force, "force", o.force, "replace existing files")
	f.IntVar(&o.workers, "workers", o.workers, "goroutines minting (default: one per core)")
	return cmd
}

func runPowMint(cmd *cobra.Command, o powMintOptions) error {
	p, err := o.params()
	if err != nil {
		return err
	}
	if o.out == "" {
		return badInputf("-o FILE: say where to write the identity")
	}
	if o.workers < 0 {
		return badInputf("--workers %d: want at least 1 (or 0 for one per core)", o.workers)
	}
	keyPath := o.key
	if keyPath == "" {
		keyPath = o.out + ".key"
	}
	if keyPath == o.out {
		return badInputf("--key %s: the private key needs a file of its own", keyPath)
	}
	if !o.force {
		for _, path := range []string{o.out, keyPath} {
			if _, err := os.Lstat(path); err == nil {
				return badInputf("%s exists; use --force to replace it", path)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return badInput(err)
			}
		}
	}
	ctx, stop := powInterrupts(cmd)
	defer stop()
	stderr := cmd.ErrOrStderr()
	mo := pow.MintOptions{Workers: o.workers}
	if powIsTerminal(stderr) {
		mo.ProgressEvery = o.progressEvery
		mo.Progress = func(pr pow.Progress) {
			unit := "key pairs"
			if pr.Phase == "dynamic" {
				unit = "nonces"
			}
			fmt.Fprintf(stderr, "\r%s puzzle: %d %s tried, %.0f expected (%.0f%%), %s   ",
				pr.Phase, pr.Attempts, unit, pr.Expected, 100*float64(pr.Attempts)/pr.Expected, pr.Elapsed.Round(time.Second/10))
			if pr.Done {
				fmt.Fprintln(stderr)
			}
		}
	}
	k, st, err := pow.Mint(ctx, p, mo)
	if err != nil {
		if ctx.Err() != nil {
			return powInterrupted(err)
		}
		return err
	}
	// The key first: an identity file without its key would be useless.
	if err := pow.WriteKeyFile(keyPath, k.Private); err != nil {
		return err
	}
	if err := pow.WriteFile(o.out, &k.Identity); err != nil {
		return err
	}
	keys, hashes := p.ExpectedWork()
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "%s: id %s\n", o.out, k.ID)
	fmt.Fprintf(w, "  %s, %d key pairs tried (2^%d = %.0f expected)", p, st.KeyPairs, p.Bits, keys)
	if p.DynBits > 0 {
		fmt.Fprintf(w, ", %d nonces (2^%d = %.0f expected)", st.Nonces, p.DynBits, hashes)
	}
	fmt.Fprintf(w, " in %s\n", st.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(w, "%s: private key (mode 0600)\n", keyPath)
	return nil
}

// --- verify ---

type powVerifyOptions struct {
	minBits    int
	minDynBits int
	maxHashes  uint64
	maxArgon2  uint64
}

func newPowVerifyCmd() *cobra.Command {
	def := pow.DefaultPolicy()
	o := powVerifyOptions{maxHashes: def.MaxHashes, maxArgon2: def.MaxArgon2KiB}
	cmd := &cobra.Command{
		Use:   "verify FILE...",
		Short: "Verify identity files",
		Long: `Verify each identity file: its encoding and checksum, id = H(public key), and
its puzzles. Prints one line per file; a failing file is named with the reason
on stderr. The work spent on one file is capped (argon2id is as slow to verify,
per hash, as to mint).

Exit codes: 0 every file verifies, 1 some file does not, 2 some file could
not be read or a flag is wrong.`,
		Args: usageArgs(1, -1),
		RunE: func(cmd *cobra.Command, args []string) error { return runPowVerify(cmd, o, args) },
	}
	f := cmd.Flags()
	f.IntVar(&o.minBits, "min-bits", o.minBits, "refuse static puzzles of fewer bits")
	f.IntVar(&o.minDynBits, "min-dyn-bits", o.minDynBits, "refuse dynamic puzzles of fewer bits")
	f.Uint64Var(&o.maxHashes, "max-hashes", o.maxHashes, "most hash evaluations to spend on one file")
	f.Uint64Var(&o.maxArgon2, "max-argon2", o.maxArgon2, "most argon2id memory to fill for one file, KiB × passes")
	return cmd
}

func runPowVerify(cmd *cobra.Command, o powVerifyOptions, files []string) error {
	if o.minBits < 0 || o.minDynBits < 0 {
		return badInputf("--min-bits and --min-dyn-bits must not be negative")
	}
	pol := pow.Policy{MinBits: o.minBits, MinDynBits: o.minDynBits, MaxHashes: o.maxHashes, MaxArgon2KiB: o.maxArgon2}
	w, ew := cmd.OutOrStdout(), cmd.ErrOrStderr()
	var unreadable, bad int
	for _, path := range files {
		id, err := pol.VerifyFile(path)
		var pe *fs.PathError
		switch {
		case errors.As(err, &pe):
			unreadable++
			fmt.Fprintf(ew, "%s: cannot read: %v\n", path, pe.Err)
		case err != nil:
			bad++
			fmt.Fprintf(ew, "%s: FAIL: %s\n", path, strings.TrimPrefix(err.Error(), path+": "))
		default:
			fmt.Fprintf(w, "%s: ok %s %s\n", path, id.ID, id.Params)
		}
	}
	switch {
	case unreadable > 0:
		return badInputf("%d of %d identity files could not be read", unreadable, len(files))
	case bad > 0:
		return failed(fmt.Errorf("%d of %d identity files failed verification", bad, len(files)))
	}
	return nil
}

// The --format vocabularies of pow bench and pow grind: text for people,
// and one machine format each.
var (
	powBenchFormats = []string{"text", "json"}
	powGrindFormats = []string{"text", "csv"}
)

// --- bench ---

type powBenchOptions struct {
	duration     time.Duration
	workers      int
	format       string
	argonTime    uint32
	argonMemory  uint32
	argonThreads uint8
}

func newPowBenchCmd() *cobra.Command {
	a := pow.DefaultArgon2()
	o := powBenchOptions{duration: 500 * time.Millisecond, format: "text",
		argonTime: a.Time, argonMemory: a.MemoryKiB, argonThreads: a.Threads}
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Measure hash and key-generation rates",
		Long: `Measure each hash function on 32-byte inputs (what the puzzles hash), on one
core and on every core, Argon2id's milliseconds per hash, and Ed25519 key
generations per second.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPowBench(cmd, o) },
	}
	f := cmd.Flags()
	f.DurationVar(&o.duration, "duration", o.duration, "time per measurement")
	f.IntVar(&o.workers, "workers", o.workers, "goroutines for the all-cores figures (default: one per core)")
	bindFormat(cmd, &o.format, o.format, powBenchFormats, "output")
	f.Uint32Var(&o.argonTime, "argon2-time", o.argonTime, "argon2id: passes over memory")
	f.Uint32Var(&o.argonMemory, "argon2-memory", o.argonMemory, "argon2id: memory per hash, KiB")
	f.Uint8Var(&o.argonThreads, "argon2-threads", o.argonThreads, "argon2id: lanes per hash")
	return cmd
}

func runPowBench(cmd *cobra.Command, o powBenchOptions) error {
	if err := checkFormat(o.format, powBenchFormats); err != nil {
		return err
	}
	if o.duration <= 0 {
		return badInputf("--duration %s: must be positive", o.duration)
	}
	if o.workers < 0 {
		return badInputf("--workers %d: want at least 1 (or 0 for one per core)", o.workers)
	}
	a := pow.Argon2Params{Time: o.argonTime, MemoryKiB: o.argonMemory, Threads: o.argonThreads}
	if err := a.Validate(); err != nil {
		return badInputf("--argon2-time/--argon2-memory/--argon2-threads: %w", err)
	}
	ctx, stop := powInterrupts(cmd)
	defer stop()
	res, err := pow.Bench(ctx, pow.BenchOptions{Duration: o.duration, Workers: o.workers, Argon2: a})
	if err != nil {
		if ctx.Err() != nil {
			return powInterrupted(err)
		}
		return err
	}
	w := cmd.OutOrStdout()
	if o.format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "HASH\tPER CORE (H/s)\tALL %d (H/s)\tMS/HASH\tSETTINGS\n", res.Workers)
	for _, h := range res.Hashes {
		settings := "32-byte input"
		if h.Argon2 != nil {
			settings = fmt.Sprintf("t=%d m=%dKiB p=%d", h.Argon2.Time, h.Argon2.MemoryKiB, h.Argon2.Threads)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.4g\t%s\n", h.Hash, powSI(h.PerCore), powSI(h.AllCores), h.MsPerHash, settings)
	}
	fmt.Fprintf(tw, "ed25519 keygen\t%s\t%s\t%.4g\tkeys/s\n", powSI(res.KeysPerCore), powSI(res.KeysAllCores), 1e3/res.KeysPerCore)
	return tw.Flush()
}

// --- grind ---

type powGrindOptions struct {
	powParamFlags
	honest  []int
	budgets []time.Duration
	trials  int
	seed    uint64
	keyRate float64
	workers int
	format  string
	output  string
}

func newPowGrindCmd() *cobra.Command {
	o := powGrindOptions{powParamFlags: defaultPowParamFlags(6), honest: []int{4, 16, 64},
		budgets: []time.Duration{10 * time.Millisecond, 50 * time.Millisecond}, trials: 200, seed: 1}
	cmd := &cobra.Command{
		Use:   "grind [flags]",
		Short: "Study what grinding ids buys an adversary",
		Long: `The adversary study (ALGORITHMS.md, "Identities"). In each trial N honest
nodes mint one identity each at difficulty b, and an adversary spends its
budget of CPU time minting m valid ids by real minting, then runs one node
with the best of them.

Ranked by id, the adversary holds the highest rank with probability m/(N+m).
Ranked by H(id ‖ epoch nonce), the nonce drawn after every identity is fixed,
its committed id is no better than any other: 1/(N+1). The table sets each
measured probability against its closed form (z = difference in standard
errors); "all m" is the Sybil case, every one of the m ids registered.

Budgets become key-pair attempts through the key rate of one core, measured
first (or given with --key-rate, which makes the study exactly repeatable).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPowGrind(cmd, o) },
	}
	o.bind(cmd, false)
	f := cmd.Flags()
	f.IntSliceVar(&o.honest, "honest", o.honest, "numbers N of honest identities")
	f.DurationSliceVar(&o.budgets, "budget", o.budgets, "adversary budgets, CPU time each")
	f.IntVar(&o.trials, "trials", o.trials, "trials per N and budget")
	f.Uint64Var(&o.seed, "seed", o.seed, "seed of every trial's keys and epoch nonce")
	f.Float64Var(&o.keyRate, "key-rate", o.keyRate, "key pairs one core tries per CPU-second (default: measured)")
	f.IntVar(&o.workers, "workers", o.workers, "goroutines running trials (default: one per core); results do not depend on it")
	bindFormat(cmd, &o.format, o.format, powGrindFormats, "output (default: from -o FILE's extension, else text)")
	bindOutput(f, &o.output, "write the results (in --format; .csv means csv) to this file; the table still goes to standard output")
	return cmd
}

func runPowGrind(cmd *cobra.Command, o powGrindOptions) error {
	p, err := o.params()
	if err != nil {
		return err
	}
	format := o.format
	if format == "" {
		format = "text"
		if strings.EqualFold(filepath.Ext(o.output), ".csv") {
			format = "csv"
		}
	}
	switch {
	case checkFormat(format, powGrindFormats) != nil:
		return checkFormat(format, powGrindFormats)
	case len(o.honest) == 0:
		return badInputf("--honest: give at least one number of honest identities")
	case len(o.budgets) == 0:
		return badInputf("--budget: give at least one budget")
	case o.trials < 1:
		return badInputf("--trials %d: need at least one trial", o.trials)
	case o.keyRate < 0 || math.IsNaN(o.keyRate) || math.IsInf(o.keyRate, 0):
		return badInputf("--key-rate %v: want a positive rate (or 0 to measure it)", o.keyRate)
	case o.workers < 0:
		return badInputf("--workers %d: want at least 1 (or 0 for one per core)", o.workers)
	}
	for _, n := range o.honest {
		if n < 1 {
			return badInputf("--honest %d: want at least one honest identity", n)
		}
	}
	for _, b := range o.budgets {
		if b <= 0 {
			return badInputf("--budget %s: must be positive", b)
		}
	}
	ctx, stop := powInterrupts(cmd)
	defer stop()
	stderr := cmd.ErrOrStderr()
	cfg := pow.GrindConfig{Params: p, Honest: o.honest, Budgets: o.budgets, Trials: o.trials,
		Seed: o.seed, KeyRate: o.keyRate, Workers: o.workers}
	if powIsTerminal(stderr) {
		cfg.Progress = func(done, total int) {
			fmt.Fprintf(stderr, "\rtrial %d of %d ", done, total)
			if done == total {
				fmt.Fprintln(stderr)
			}
		}
	}
	res, err := pow.Grind(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return powInterrupted(err)
		}
		return err
	}
	if o.output != "" && o.output != "-" {
		err := reports.WriteFileAtomic(o.output, func(w io.Writer) error { return writeGrind(w, format, p, o.trials, &res) })
		if err != nil {
			return fmt.Errorf("--output %s: %w", o.output, err)
		}
		if format == "text" {
			return nil
		}
		format = "text" // the file has the CSV; people read the table
	}
	return writeGrind(cmd.OutOrStdout(), format, p, o.trials, &res)
}

// writeGrind writes pow grind's results as a table (text) or CSV.
func writeGrind(w io.Writer, format string, p pow.Params, trials int, res *pow.GrindResult) error {
	if format == "csv" {
		return res.WriteCSV(w)
	}
	fmt.Fprintf(w, "grind: %s, %s key pairs per CPU-second, %d trials per row\n", p, powSI(res.KeyRate), trials)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "N\tBUDGET\tATTEMPTS\tm\tBY ID\tm/(N+m)\tz\tBY EPOCH\t1/(N+1)\tz\tALL m BY EPOCH\tz")
	for _, r := range res.Rows {
		fmt.Fprintf(tw, "%d\t%s\t%d\t%.2f\t%.3f\t%.3f\t%+.1f\t%.3f\t%.3f\t%+.1f\t%.3f\t%+.1f\n",
			r.Honest, r.Budget, r.Attempts, r.MeanIDs,
			r.Static.P, r.Static.Form, r.Static.Z(), r.Epoch.P, r.Epoch.Form, r.Epoch.Z(), r.EpochAll.P, r.EpochAll.Z())
	}
	return tw.Flush()
}
