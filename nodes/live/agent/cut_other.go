//go:build !linux

package agent

import (
	"errors"
	"net/netip"
)

// cuts refuses: the agent cuts packets with nftables, which is Linux's.
type cuts struct{}

func (*cuts) listening(netip.AddrPort) {}

func (*cuts) apply(bool, netip.Addr, netip.Addr) error {
	return errors.New("cuts between hosts need Linux's nftables")
}

func (*cuts) close() error { return nil }
