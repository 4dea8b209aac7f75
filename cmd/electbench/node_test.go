package main

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/electbench/electbench/nodes/live"
)

// Flag parsing, apart from running: the harness's command line maps to the
// node's configuration, and each mistake is bad input (exit 2) naming what
// is wrong, before anything runs.
func TestNodeFlags(t *testing.T) {
	parse := func(args ...string) (live.NodeConfig, bool, error) {
		var got live.NodeConfig
		ran := false
		cmd := nodeCmd(func(_ *cobra.Command, c live.NodeConfig) error { got, ran = c, true; return nil })
		cmd.SetArgs(args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		err := cmd.Execute()
		return got, ran, err
	}
	for _, tc := range []struct {
		args []string
		want live.NodeConfig
	}{
		{nil, live.NodeConfig{Bits: live.DefaultBits}},
		{[]string{"--identity-dir", "d/n3", "--bits", "5"}, live.NodeConfig{IdentityDir: "d/n3", Bits: 5}},
		{[]string{"--identity-dir", "d/n3", "--bits", "5", "--forge", "stolen"}, live.NodeConfig{IdentityDir: "d/n3", Bits: 5, Forge: "stolen"}},
		{[]string{"--listen-fd", "3"}, live.NodeConfig{Bits: live.DefaultBits, ListenFD: 3}},
		{[]string{"--challenge", "c0ffee"}, live.NodeConfig{Bits: live.DefaultBits, Challenge: "c0ffee"}},
	} {
		if c, ran, err := parse(tc.args...); err != nil || !ran || c != tc.want {
			t.Errorf("%q: %+v (ran %v), %v; want %+v", tc.args, c, ran, err, tc.want)
		}
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--forge", "sideways"}, `--forge "sideways": want one of forged-id, unsolved, weak, stolen`},
		{[]string{"--bits", "65"}, "--bits 65: want 0..64"},
		{[]string{"--listen-fd", "1"}, "--listen-fd 1: want an inherited descriptor, 3 or above"},
		{[]string{"--challenge", strings.Repeat("c", live.MaxChallenge+1)}, "--challenge: 129 bytes, want at most 128"},
		{[]string{"--identity-dir", "d", "extra"}, `unexpected arguments ["extra"]`},
	} {
		_, ran, err := parse(tc.args...)
		var ee *exitError
		switch {
		case ran:
			t.Errorf("%q: ran the node", tc.args)
		case !errors.As(err, &ee) || ee.code != exitBadInput:
			t.Errorf("%q: %v, want bad input", tc.args, err)
		case !strings.Contains(err.Error(), tc.want):
			t.Errorf("%q: %q does not say %q", tc.args, err, tc.want)
		}
	}
}
