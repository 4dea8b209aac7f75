package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/electbench/electbench/pow"
)

// Flag parsing, apart from running: each pow flag maps to its parameter, and
// each bad value is bad input (exit 2) naming the flag.
func TestPowParamFlags(t *testing.T) {
	o := defaultPowParamFlags(9)
	o.hash, o.iterations, o.dynBits = "argon2id", 3, 2
	o.argonTime, o.argonMemory, o.argonThreads = 2, 128, 2
	p, err := o.params()
	if err != nil {
		t.Fatal(err)
	}
	want := pow.Params{Hash: pow.Argon2id, Iterations: 3, Bits: 9, DynBits: 2,
		Argon2: pow.Argon2Params{Time: 2, MemoryKiB: 128, Threads: 2}}
	if p != want {
		t.Errorf("params() = %+v, want %+v", p, want)
	}
	def := defaultPowParamFlags(16)
	if dp, _ := def.params(); dp != pow.DefaultParams() {
		t.Errorf("the flags' defaults %+v differ from pow.DefaultParams() %+v", dp, pow.DefaultParams())
	}

	for name, tc := range map[string]struct {
		change func(*powParamFlags)
		flag   string
	}{
		"sha1":         {func(o *powParamFlags) { o.hash = "sha1" }, "--hash"},
		"bits":         {func(o *powParamFlags) { o.bits = 65 }, "--bits"},
		"dyn-bits":     {func(o *powParamFlags) { o.dynBits = -1 }, "--dyn-bits"},
		"iterations":   {func(o *powParamFlags) { o.iterations = 0 }, "--iterations"},
		"argon2 lanes": {func(o *powParamFlags) { o.hash, o.argonThreads = "argon2id", 0 }, "--argon2-threads"},
	} {
		o := defaultPowParamFlags(8)
		tc.change(&o)
		_, err := o.params()
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != exitBadInput {
			t.Errorf("%s: %v, want bad input", name, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.flag) {
			t.Errorf("%s: %q does not name %s", name, msg, tc.flag)
		}
	}
}
