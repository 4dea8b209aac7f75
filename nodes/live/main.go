package live

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
)

// NodeConfig is what a node process is told on its command line
// (`electbench node --identity-dir DIR --bits B [--forge MODE] [--listen-fd FD] [--challenge C]`).
type NodeConfig struct {
	// IdentityDir holds the node's identity: loaded if present, else minted
	// and kept there ("" mints one and keeps nothing).
	IdentityDir string
	// Bits is the static puzzle difficulty of a minted identity.
	Bits int
	// Forge, one of ForgeModes, presents a dishonest identity (testing
	// refusal); "" is an honest node.
	Forge string
	// ListenFD is a listening socket the node inherited and accepts its
	// peers on (the harness keeps one per node across the trials of a
	// cluster, so that its proxies keep their upstreams); 0 listens on
	// 127.0.0.1:0.
	ListenFD int
	// Challenge is the harness's fresh challenge for this process, which
	// hello signs (ProveToHarness); "" signs nothing.
	Challenge string
}

// NodeMain is a node process (`electbench node`): it loads, mints or forges
// its identity and runs until the harness stops it or goes away. stdout is
// the control channel and carries nothing else; diagnostics go to log. It
// returns nil after the harness's stop, and otherwise an error saying what
// failed.
func NodeMain(ctx context.Context, c NodeConfig, stdin io.Reader, stdout, log io.Writer) error {
	p := IdentityParams(c.Bits)
	o := Options{Log: log, StateDir: c.IdentityDir, Challenge: c.Challenge}
	var err error
	if c.Forge != "" {
		if o.Identity, o.Show, err = Forge(ctx, c.Forge, p); err != nil {
			return fmt.Errorf("forging a %s identity: %w", c.Forge, err)
		}
	} else if o.Identity, err = LoadOrMint(ctx, c.IdentityDir, p); err != nil {
		return fmt.Errorf("loading or minting the identity: %w", err)
	}
	if c.ListenFD > 0 {
		f := os.NewFile(uintptr(c.ListenFD), "inherited listener")
		ln, err := net.FileListener(f)
		f.Close() // FileListener keeps a copy of its own
		if err != nil {
			return fmt.Errorf("--listen-fd %d: not a listening socket: %w", c.ListenFD, err)
		}
		o.Listener = ln
	}
	if err := Run(ctx, o, stdin, stdout); err != nil {
		return fmt.Errorf("node %s: %w", o.Identity.ID, err)
	}
	return nil
}
