package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/internal/owner"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// What a run leaves behind when it cannot clean up: the proxies of a trial
// whose server stopped answering (they are removed once it answers again,
// by this run or the next), and, when the harness itself was killed
// (SIGKILL gives no chance to clean), its proxies, its trials'
// temporary directories and its nftables table (netcut: "electbench_<pid>").
// Proxies and directories name their owner by pid and token
// (internal/owner: its PID namespace, boot and start time) — proxies
// "eb<pid>-<token>-…" (keptFor), directories holding an ownerFile and a
// tokenFile — so that a later run removes them only once the owner is provably
// dead: a run in another PID namespace (a container sharing TMPDIR or the
// Toxiproxy server), whose pid means nothing here, is never taken for
// dead, nor is an owner that named no token.

// ownerFile, in a trial's temporary directory, holds the harness's pid;
// tokenFile its owner.Token. They are two files, the pid alone in the
// first as before, because an earlier electbench on the same host reads
// the first and removes a directory whose pid it cannot parse.
const (
	ownerFile = "owner.pid"
	tokenFile = "owner.token"
)

// TempPattern is the name os.MkdirTemp gives trials' temporary
// directories (under os.TempDir()).
const TempPattern = "electbench-live-"

// claimDir writes the owner files into a trial's directory, once: the
// token first, so that a directory whose pid is read has its token.
func claimDir(dir string) error {
	path := filepath.Join(dir, ownerFile)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, tokenFile), []byte(ownerToken()+"\n"), 0o600); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
}

// ownerToken is this process's owner.Token, "x" where it cannot be
// known (nothing it leaves is then proved dead).
func ownerToken() string { return cmp.Or(owner.Token(), "x") }

// dead reports whether the owner pid and token name is provably gone
// (owner.Dead), never this process.
func dead(pid int, token string) bool { return pid != os.Getpid() && owner.Dead(pid, token) }

// Cleaned is what a clean-up removed.
type Cleaned struct {
	Dirs    []string // temporary directories of dead runs
	Proxies []string // proxies of dead runs
	Tables  []string // nftables tables of dead runs (netcut)
	Hosts   []string // namespaces and links of dead runs' --netns hosts (hostns)
}

// RemoveDeadDirs removes the temporary directories of live runs whose
// harness is provably gone: those with an owner file naming a pid and
// token that no longer run (dead), and those without one (a harness killed
// between creating the directory and starting its first node) older than
// an hour. An owner of another PID namespace or boot is never taken for
// dead. Only directories this user owns are touched.
func RemoveDeadDirs() ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), TempPattern+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var first error
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || !owner.OwnedByMe(fi) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(d, ownerFile))
		switch {
		case err == nil:
			pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
			token, terr := os.ReadFile(filepath.Join(d, tokenFile))
			if perr != nil || terr != nil || !dead(pid, strings.TrimSpace(string(token))) {
				continue
			}
		case errors.Is(err, fs.ErrNotExist):
			if time.Since(fi.ModTime()) < time.Hour {
				continue
			}
		default:
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			if first == nil {
				first = fmt.Errorf("removing %s: %w", d, err)
			}
			continue
		}
		removed = append(removed, d)
	}
	return removed, first
}

// RemoveDeadProxies removes the proxies on the server that a harness
// provably gone created ("eb<pid>-<token>-…", dead).
func RemoveDeadProxies(ctx context.Context, c *toxi.Client) ([]string, error) {
	names, err := c.Names(ctx, "eb")
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, name := range names {
		if pid, token, ok := proxyOwner(name); ok && dead(pid, token) {
			gone = append(gone, name)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	if err := c.Delete(ctx, gone...); err != nil {
		return nil, err
	}
	return gone, nil
}

// proxyOwner is the harness pid and token in a proxy's name,
// "eb<pid>-<token>-c<cluster>-<rand>-<from>-<to>" (keptFor).
func proxyOwner(name string) (pid int, token string, ok bool) {
	rest, ok := strings.CutPrefix(name, "eb")
	digits, rest, ok2 := strings.Cut(rest, "-")
	token, _, ok3 := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, token, ok && ok2 && ok3 && err == nil && pid > 0
}

// Clean removes what dead runs left: their temporary directories, their
// nftables tables (the link cuts of system trials), and their proxies on
// the Toxiproxy at url ("" for none: an embedded server dies with its
// harness, and its proxies with it).
func Clean(ctx context.Context, url string) (Cleaned, error) {
	var out Cleaned
	dirs, err := RemoveDeadDirs()
	out.Dirs = dirs
	tables, terr := removeDeadTables()
	out.Tables = tables
	hosts, herr := removeDeadHosts()
	out.Hosts = hosts
	err = errors.Join(err, terr, herr)
	if url == "" {
		return out, err
	}
	c := toxi.NewClient(url)
	proxies, perr := RemoveDeadProxies(ctx, c)
	out.Proxies = proxies
	return out, errors.Join(err, perr)
}
