package harness

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/electbench/electbench/nodes/live/agent"
	"github.com/electbench/electbench/nodes/live/harness/hostns"
	"github.com/electbench/electbench/pow"
)

// newAgents makes opt.Netns hosts and starts an agent in each, with a
// key pair of its own and the controller's (this harness's), both fresh:
// the keys are written to a directory of the run (an agent reads files),
// removed at close or, after a SIGKILL, by the next run's clean-up
// (claimDir).
func newAgents(opt *Options) (placement, error) {
	p, err := newNetns(opt.Netns, opt.ClockOffsets)
	if err != nil {
		return nil, err
	}
	set := p.(netns).set
	a := &agents{proxy: set.Root().String(), done: set.Close}
	fail := func(err error) (placement, error) {
		a.close()
		return nil, fmt.Errorf("--netns %d through agents: %w", opt.Netns, err)
	}
	if a.dir, err = os.MkdirTemp("", TempPattern+"agents-"); err != nil {
		return fail(err)
	}
	if err := claimDir(a.dir); err != nil {
		return fail(err)
	}
	ctl, err := mintKey()
	if err != nil {
		return fail(err)
	}
	ctlFile := filepath.Join(a.dir, "controller.id")
	if err := pow.WriteFile(ctlFile, &ctl.Identity); err != nil {
		return fail(err)
	}
	for i := range set.Hosts() {
		h, err := a.startAgent(opt, set, i, ctlFile, ctl.Private)
		if err != nil {
			return fail(err)
		}
		a.hosts = append(a.hosts, h)
	}
	return netnsAgents{a, set}, nil
}

// mintKey is a fresh Ed25519 key pair in the form `electbench pow mint`
// writes: the agents' keys identify hosts, so no puzzle is asked of them.
func mintKey() (pow.Key, error) {
	k, _, err := pow.Mint(context.Background(), pow.Params{Hash: pow.SHA256, Iterations: 1}, pow.MintOptions{Workers: 1})
	if err != nil {
		return pow.Key{}, fmt.Errorf("making a key pair: %w", err)
	}
	return k, nil
}

// startAgent starts the agent of host i of set with a key of its own, pinning
// the controller's identity in ctlFile, reads the address it printed and
// connects to it as the holder of ctl.
func (a *agents) startAgent(opt *Options, set *hostns.Set, i int, ctlFile string, ctl ed25519.PrivateKey) (*agentHost, error) {
	key, err := mintKey()
	if err != nil {
		return nil, err
	}
	keyFile := filepath.Join(a.dir, "agent-"+strconv.Itoa(i)+".key")
	if err := pow.WriteKeyFile(keyFile, key.Private); err != nil {
		return nil, err
	}
	host := set.Hosts()[i]
	args := append(opt.Agent[1:len(opt.Agent):len(opt.Agent)], "--listen", host.Addr.String()+":0", "--key", keyFile, "--controller", ctlFile)
	cmd := exec.Command(opt.Agent[0], args...)
	// In a group of its own, so that a terminal's Ctrl-C reaches the
	// harness alone, and killed by the kernel with the harness, taking
	// its nodes with it (theirs is the agent's death).
	cmd.SysProcAttr = nodeSysProcAttr()
	h := newAgentHost(fmt.Sprintf("the agent of host %d (%s)", i, host.Addr), host.Addr.String(), opt.Log)
	h.cmd = cmd
	cmd.Stderr = &tailWriter{log: opt.Log, prefix: fmt.Sprintf("agent %d: ", i)}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("%s's output: %w", h.name, err)
	}
	if err := set.Start(i, cmd); err != nil {
		return nil, fmt.Errorf("starting %s (%q): %w", h.name, opt.Agent[0], err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	addr, err := listening(ctx, out)
	if err != nil {
		err = fmt.Errorf("%s: %w", h.name, err)
	} else {
		err = h.connect(ctx, addr, ctl, key.Private.Public().(ed25519.PublicKey))
	}
	if err != nil {
		h.stop()
		return nil, err
	}
	return h, nil
}

// listening reads the address an agent prints on its first line; the
// rest of its output is discarded.
func listening(ctx context.Context, out io.Reader) (string, error) {
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- sc.Text()
		}
		close(line)
		io.Copy(io.Discard, out)
	}()
	select {
	case l, ok := <-line:
		if !ok {
			return "", errors.New("it exited without saying where it listens")
		}
		addr, _, err := agent.ParseListening(l)
		return addr, err
	case <-ctx.Done():
		return "", fmt.Errorf("no address printed: %w", ctx.Err())
	}
}
