package pow

import (
	"errors"
	"testing"
)

func TestPolicy(t *testing.T) {
	k := mintForTest(t, Params{Hash: SHA256, Iterations: 1, Bits: 6, DynBits: 2})
	heavy := Identity{Params: Params{Hash: Argon2id, Iterations: 1, Bits: 1,
		Argon2: Argon2Params{Time: MaxArgon2Time, MemoryKiB: MaxArgon2Memory, Threads: 1}}}
	long := Identity{Params: Params{Hash: SHA256, Iterations: MaxIterations, Bits: 1}}
	tests := []struct {
		name string
		pol  Policy
		id   *Identity
		want error
	}{
		{"default accepts", DefaultPolicy(), &k.Identity, nil},
		{"hash accepted", Policy{Hashes: []Hash{SHA3_256, SHA256}, MaxHashes: 3}, &k.Identity, nil},
		{"hash not accepted", Policy{Hashes: []Hash{Argon2id}, MaxHashes: 3}, &k.Identity, ErrPolicy},
		{"too few bits", Policy{MinBits: 7, MaxHashes: 3}, &k.Identity, ErrPolicy},
		{"too few dynamic bits", Policy{MinDynBits: 3, MaxHashes: 3}, &k.Identity, ErrPolicy},
		{"exactly enough", Policy{MinBits: 6, MinDynBits: 2, MaxHashes: 3}, &k.Identity, nil},
		{"3 hashes over a cap of 2", Policy{MaxHashes: 2}, &k.Identity, ErrPolicy},
		// These would take minutes and 4 GiB, or a million hashes, if the
		// policy did not refuse them before hashing.
		{"argon2id too costly", DefaultPolicy(), &heavy, ErrPolicy},
		{"too many iterations", DefaultPolicy(), &long, ErrPolicy},
		{"bad params", DefaultPolicy(), &Identity{Params: Params{Hash: SHA256}}, ErrParams},
		{"forged id", DefaultPolicy(), &Identity{Params: Params{Hash: SHA256, Iterations: 1}}, ErrKeyMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.pol.Verify(tc.id)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Errorf("Verify: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestVerifyWork(t *testing.T) {
	tests := []struct {
		p    Params
		want Work
	}{
		{Params{Hash: SHA256, Iterations: 1, Bits: 8}, Work{Hashes: 2}},
		{Params{Hash: SHA256, Iterations: 5, Bits: 8, DynBits: 1}, Work{Hashes: 15}},
		{Params{Hash: Argon2id, Iterations: 2, Argon2: Argon2Params{Time: 3, MemoryKiB: 1024, Threads: 1}}, Work{Hashes: 4, Argon2KiB: 4 * 3 * 1024}},
		{Params{Hash: Argon2id, Iterations: 1, Argon2: DefaultArgon2()}, Work{Hashes: 2, Argon2KiB: 2 * 64 << 10}},
	}
	for _, tc := range tests {
		if got := tc.p.VerifyWork(); got != tc.want {
			t.Errorf("%v: VerifyWork() = %+v, want %+v", tc.p, got, tc.want)
		}
	}
	// The default Argon2id settings pass the default policy.
	w := Params{Hash: Argon2id, Iterations: 1, DynBits: 4, Argon2: DefaultArgon2()}.VerifyWork()
	if w.Argon2KiB > DefaultPolicy().MaxArgon2KiB {
		t.Errorf("default argon2id with a dynamic puzzle needs %d KiB, over the default cap", w.Argon2KiB)
	}
}
