package live

import (
	"context"
	"fmt"
	"io"
)

// NodeConfig is what a node process is told on its command line
// (`electbench node --identity-dir DIR --bits B [--forge MODE]`).
type NodeConfig struct {
	// IdentityDir holds the node's identity: loaded if present, else minted
	// and kept there ("" mints one and keeps nothing).
	IdentityDir string
	// Bits is the static puzzle difficulty of a minted identity.
	Bits int
	// Forge, one of ForgeModes, presents a dishonest identity (testing
	// refusal); "" is an honest node.
	Forge string
}

// NodeMain is a node process (`electbench node`): it loads, mints or forges
// its identity and runs until the harness stops it or goes away. stdout is
// the control channel and carries nothing else; diagnostics go to log. It
// returns nil after the harness's stop, and otherwise an error saying what
// failed.
func NodeMain(ctx context.Context, c NodeConfig, stdin io.Reader, stdout, log io.Writer) error {
	p := IdentityParams(c.Bits)
	o := Options{Log: log, StateDir: c.IdentityDir}
	var err error
	if c.Forge != "" {
		if o.Identity, o.Show, err = Forge(ctx, c.Forge, p); err != nil {
			return fmt.Errorf("forging a %s identity: %w", c.Forge, err)
		}
	} else if o.Identity, err = LoadOrMint(ctx, c.IdentityDir, p); err != nil {
		return fmt.Errorf("loading or minting the identity: %w", err)
	}
	if err := Run(ctx, o, stdin, stdout); err != nil {
		return fmt.Errorf("node %s: %w", o.Identity.ID, err)
	}
	return nil
}
