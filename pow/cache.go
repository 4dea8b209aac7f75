package pow

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/electbench/electbench/nodes"
)

// CacheOptions select and locate a cached set of identities.
type CacheOptions struct {
	Dir      string                 // cache root; "" means DefaultCacheDir()
	Seed     uint64                 // selects the set: identity i is a function of (Params, Seed, i)
	Workers  int                    // goroutines minting or verifying; 0 means runtime.GOMAXPROCS(0)
	Progress func(minted, want int) // called after each identity minted, one call at a time; nil for none
}

// DefaultCacheDir returns the per-user cache of minted identities,
// $XDG_CACHE_HOME/electbench/pow or the platform's equivalent.
func DefaultCacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("pow: no cache directory: %w", err)
	}
	return filepath.Join(d, "electbench", "pow"), nil
}

// Identities returns n valid identities for p: for simulations that want
// real minted ids without minting them on every run.
//
// Identity i is minted by one worker from a key stream seeded by
// SHA-256(p, o.Seed, i), so the set is the same on every machine and every
// call, whatever the number of workers: a sweep that asks for 100 ids and then
// 1000 gets the same first 100. Their private keys are therefore public
// knowledge — these identities are for simulation only; live nodes use Mint.
//
// The set is cached in o.Dir/<p>/seed-<o.Seed>.txt, one identity a line, and
// extended when more are wanted. Every cached identity is verified again on
// load; the valid prefix of a damaged file is kept and the rest minted anew.
// Calls in one process for the same file are serialized; concurrent processes
// may mint the same identities twice, but every write is an atomic rename of a
// complete file, and, minting being deterministic, whichever lands is right.
func Identities(ctx context.Context, p Params, n int, o CacheOptions) ([]Identity, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: %d identities", ErrParams, n)
	}
	p = p.normal()
	dir := o.Dir
	if dir == "" {
		d, err := DefaultCacheDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	path := filepath.Join(dir, p.String(), "seed-"+strconv.FormatUint(o.Seed, 10)+".txt")
	mu, _ := cacheLocks.LoadOrStore(path, new(sync.Mutex))
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()

	have, err := loadCache(ctx, path, p, o.Seed, workers)
	if err != nil {
		return nil, err
	}
	if len(have) >= n {
		return have[:n], nil
	}
	ids := make([]Identity, n)
	copy(ids, have)
	sum := p.sum()
	var minted atomic.Int64
	var progressMu sync.Mutex
	err = parallelFor(ctx, workers, len(have), n, func(i int) error {
		id, err := mintSeeded(ctx, p, sum, cacheSeed(p, o.Seed, i))
		if err != nil {
			return err
		}
		ids[i] = id
		if o.Progress != nil {
			progressMu.Lock()
			o.Progress(len(have)+int(minted.Add(1)), n)
			progressMu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("pow: minting identities for %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("pow: identity cache: %w", err)
	}
	if err := writeAtomic(path, encodeCache(p, o.Seed, ids), 0o644); err != nil {
		return nil, fmt.Errorf("pow: identity cache: %w", err)
	}
	return ids, nil
}

// cacheLocks serializes the callers of Identities in this process, per file.
var cacheLocks sync.Map // path → *sync.Mutex

const cacheFormat = "electbench-pow-cache 1"

func cacheHeader(p Params, seed uint64) string {
	return cacheFormat + " " + p.String() + " " + strconv.FormatUint(seed, 10)
}

// encodeCache writes the header line, then "id public-key [nonce]" in hex,
// one identity a line.
func encodeCache(p Params, seed uint64, ids []Identity) []byte {
	var b bytes.Buffer
	b.WriteString(cacheHeader(p, seed) + "\n")
	for i := range ids {
		idb := ids[i].ID.Bytes()
		b.WriteString(hex.EncodeToString(idb[:]) + " " + hex.EncodeToString(ids[i].PublicKey[:]))
		if p.DynBits > 0 {
			b.WriteString(" " + hex.EncodeToString(ids[i].Nonce[:]))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// loadCache returns the longest prefix of the cache file that parses and
// verifies. A missing or foreign file is an empty cache, not an error.
func loadCache(ctx context.Context, path string, p Params, seed uint64, workers int) ([]Identity, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("pow: identity cache: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != cacheHeader(p, seed) {
		return nil, nil
	}
	var ids []Identity
	for sc.Scan() {
		id, ok := parseCacheLine(sc.Text(), p)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	bad := make([]bool, len(ids))
	err = parallelFor(ctx, workers, 0, len(ids), func(i int) error {
		bad[i] = ids[i].Verify() != nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	if i := indexTrue(bad); i >= 0 {
		ids = ids[:i]
	}
	return ids, nil
}

func parseCacheLine(line string, p Params) (Identity, bool) {
	f := strings.Split(line, " ")
	want := 2
	if p.DynBits > 0 {
		want = 3
	}
	id := Identity{Params: p}
	if len(f) != want {
		return id, false
	}
	var idb [32]byte
	if decodeHex("id", f[0], idb[:]) != nil || decodeHex("public_key", f[1], id.PublicKey[:]) != nil {
		return id, false
	}
	id.ID = nodes.IDFromBytes(idb)
	if want == 3 && decodeHex("nonce", f[2], id.Nonce[:]) != nil {
		return id, false
	}
	return id, true
}

func indexTrue(b []bool) int {
	for i, v := range b {
		if v {
			return i
		}
	}
	return -1
}

// cacheSeed returns the key-stream seed of cached identity i.
func cacheSeed(p Params, seed uint64, i int) [32]byte {
	var b []byte
	b = append(b, "electbench/pow/cache/v1\x00"...)
	b = append(b, p.String()...)
	b = binary.BigEndian.AppendUint64(append(b, 0), seed)
	b = binary.BigEndian.AppendUint64(b, uint64(i))
	return sha256.Sum256(b)
}

// mintSeeded mints one identity on the calling goroutine from the key stream
// seeded by seed: the same seed always gives the same identity.
func mintSeeded(ctx context.Context, p Params, sum sumFunc, seed [32]byte) (Identity, error) {
	keyBatch, nonceBatch := p.batches()
	s := newKeySearch(p, sum, seed)
	for found := false; !found; {
		for range keyBatch {
			if found = s.try(); found {
				break
			}
		}
		if err := ctx.Err(); err != nil {
			return Identity{}, err
		}
	}
	id := keyFromSeed(p, sum, s.buf.seed).Identity
	if p.DynBits == 0 {
		return id, nil
	}
	ns := newNonceSearch(p, sum, id.ID, 0)
	for c := uint64(0); ; c += nonceBatch {
		if x, ok := ns.run(c, nonceBatch); ok {
			id.Nonce = nonceOf(0, x)
			return id, nil
		}
		if err := ctx.Err(); err != nil {
			return Identity{}, err
		}
	}
}

// parallelFor calls f(i) for every i in [from, to) on workers goroutines and
// returns the first error, after which no new calls start.
func parallelFor(ctx context.Context, workers, from, to int, f func(i int) error) error {
	var next atomic.Int64
	next.Store(int64(from))
	var (
		mu    sync.Mutex
		first error
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	for range min(workers, max(to-from, 0)) {
		wg.Go(func() {
			for !stop.Load() {
				i := int(next.Add(1) - 1)
				if i >= to {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = f(i)
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					stop.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return first
}
