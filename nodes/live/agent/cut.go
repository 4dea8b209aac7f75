package agent

import (
	"fmt"
	"net"
	"net/netip"
)

// cutRequest carries out a Cut or Heal of the controller's and answers
// it with Applied, stamped when its rule took effect; a failure is the
// Fail of its number (handle).
func (a *Agent) cutRequest(m *Msg) error {
	from, to, err := cutAddrs(m)
	if err != nil {
		return err
	}
	if err := a.cuts.apply(m.Kind == Cut, from, to); err != nil {
		return fmt.Errorf("agent: %s %v -> %v: %w", kindName(m.Kind), from, to, err)
	}
	a.send(&Msg{Kind: Applied, ID: m.ID, At: now()})
	return nil
}

// cutAddrs are the addresses of a Cut or Heal: packets from Addr to
// Args[0]. Two hosts sharing an address (agents on one machine's
// loopback) cannot be cut apart: a rule between them would cut the host
// from itself.
func cutAddrs(m *Msg) (from, to netip.Addr, err error) {
	if len(m.Args) != 1 {
		return from, to, fmt.Errorf("agent: %s %d: want this host's address as its one argument, have %d", kindName(m.Kind), m.ID, len(m.Args))
	}
	if from, err = netip.ParseAddr(m.Addr); err != nil {
		return from, to, fmt.Errorf("agent: %s %d: the sending host's address: %w", kindName(m.Kind), m.ID, err)
	}
	if to, err = netip.ParseAddr(m.Args[0]); err != nil {
		return from, to, fmt.Errorf("agent: %s %d: this host's address: %w", kindName(m.Kind), m.ID, err)
	}
	if from == to {
		return from, to, fmt.Errorf("agent: %s %d: both hosts are %v: hosts sharing an address cannot be cut apart", kindName(m.Kind), m.ID, from)
	}
	return from, to, nil
}

func kindName(k Kind) string {
	if k == Heal {
		return "heal"
	}
	return "cut"
}

// listenAddr is where the agent accepts its controller, as the cuts
// exempt it: its address, or the unspecified one, and its port.
func listenAddr(ln net.Listener) netip.AddrPort {
	if a, ok := ln.Addr().(*net.TCPAddr); ok {
		return a.AddrPort()
	}
	return netip.AddrPort{}
}
