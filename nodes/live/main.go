package live

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
)

// Main is a node process (`electbench node`): it parses args, loads or mints
// its identity, and runs until the harness stops it or goes away. It returns
// the process's exit code. Diagnostics go to stderr; stdout is the control
// channel and carries nothing else.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("electbench node", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("identity-dir", "", "directory of the node's identity: loaded if present, else minted and kept there")
	bits := fs.Int("bits", DefaultBits, "static puzzle bits of a minted identity")
	forge := fs.String("forge", "", "present a dishonest identity (testing refusal): one of forged-id, unsolved, weak, stolen")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "electbench node: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *forge != "" && !slices.Contains(ForgeModes, *forge) {
		fmt.Fprintf(stderr, "electbench node: --forge %q: want one of %v\n", *forge, ForgeModes)
		return 2
	}
	ctx := context.Background()
	p := IdentityParams(*bits)
	o := Options{Log: stderr}
	var err error
	if *forge != "" {
		o.Identity, o.Show, err = Forge(ctx, *forge, p)
	} else {
		o.Identity, err = LoadOrMint(ctx, *dir, p)
	}
	if err != nil {
		fmt.Fprintf(stderr, "electbench node: identity: %v\n", err)
		return 1
	}
	if err := Run(ctx, o, stdin, stdout); err != nil {
		fmt.Fprintf(stderr, "electbench node %s: %v\n", o.Identity.ID, err)
		return 1
	}
	return 0
}
