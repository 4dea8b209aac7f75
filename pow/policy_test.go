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

// A cluster's policy refuses, before any hashing, an identity of another
// puzzle: the Argon2id identity a dishonest peer shows a SHA-256 cluster
// would cost 512 MiB to verify under DefaultPolicy.
func TestPolicyFor(t *testing.T) {
	run := Params{Hash: SHA256, Iterations: 1, Bits: 4}
	pol := PolicyFor(run)
	k := mintForTest(t, run)
	if err := pol.Verify(&k.Identity); err != nil {
		t.Fatalf("the cluster's own identity: %v", err)
	}
	heavy := Identity{Params: Params{Hash: Argon2id, Iterations: 1, Bits: 1,
		Argon2: Argon2Params{Time: 1, MemoryKiB: 256 << 10, Threads: 1}}}
	if err := DefaultPolicy().Admit(&heavy); err != nil {
		t.Fatalf("the default policy admits the 512 MiB identity (the attack's premise): %v", err)
	}
	for name, id := range map[string]Identity{
		"argon2id":        heavy,
		"more iterations": {Params: Params{Hash: SHA256, Iterations: 2, Bits: 4}},
		"other hash":      {Params: Params{Hash: SHA3_256, Iterations: 1, Bits: 4}},
		"fewer bits":      {Params: Params{Hash: SHA256, Iterations: 1, Bits: 3}},
	} {
		if err := pol.Admit(&id); !errors.Is(err, ErrPolicy) {
			t.Errorf("%s: Admit = %v, want ErrPolicy", name, err)
		}
	}
	// Another Argon2 cost is another puzzle, even a cheaper one.
	a := Params{Hash: Argon2id, Iterations: 1, Bits: 1, Argon2: Argon2Params{Time: 1, MemoryKiB: 64, Threads: 1}}
	cheaper := Identity{Params: a}
	cheaper.Argon2.MemoryKiB = 32
	if err := PolicyFor(a).Admit(&cheaper); !errors.Is(err, ErrPolicy) {
		t.Errorf("other argon2 cost: Admit = %v, want ErrPolicy", err)
	}
}
