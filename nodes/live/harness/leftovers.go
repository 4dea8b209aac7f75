package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/electbench/electbench/nodes/live/harness/toxi"
)

// What a run leaves behind when it cannot clean up: the proxies of a trial
// whose server stopped answering (they are removed once it answers again,
// by this run or the next), and, when the harness itself was killed
// (SIGKILL gives no chance to clean), its proxies, its trials'
// temporary directories and its nftables table (netcut: "electbench_<pid>"). Both are named after the harness's process id —
// proxies "eb<pid>-…" (keptFor), directories holding an ownerFile
// with the pid — so that a later run removes them once it has checked that
// the process is gone.

// ownerFile, in a trial's temporary directory, holds the harness's pid.
const ownerFile = "owner.pid"

// TempPattern is the name os.MkdirTemp gives trials' temporary
// directories (under os.TempDir()).
const TempPattern = "electbench-live-"

// claimDir writes the owner file into a trial's directory, once.
func claimDir(dir string) error {
	path := filepath.Join(dir, ownerFile)
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	return os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
}

// alive reports whether a process with this pid exists (processAlive is
// per platform).
func alive(pid int) bool { return pid == os.Getpid() || processAlive(pid) }

// Cleaned is what a clean-up removed.
type Cleaned struct {
	Dirs    []string // temporary directories of dead runs
	Proxies []string // proxies of dead runs
	Tables  []string // nftables tables of dead runs (netcut)
	Hosts   []string // namespaces and links of dead runs' --netns hosts (hostns)
}

// RemoveDeadDirs removes the temporary directories of live runs whose
// harness is gone: those with an owner file naming a pid that no longer
// runs, and those without one (a harness killed between creating the
// directory and starting its first node) older than an hour. Only
// directories this user owns are touched.
func RemoveDeadDirs() ([]string, error) {
	dirs, err := filepath.Glob(filepath.Join(os.TempDir(), TempPattern+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var first error
	for _, d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || !ownedByMe(fi) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(d, ownerFile))
		switch {
		case err == nil:
			pid, perr := strconv.Atoi(strings.TrimSpace(string(data)))
			if perr == nil && pid > 0 && alive(pid) {
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

// RemoveDeadProxies removes the proxies on the server that a harness now
// gone created ("eb<pid>-…" with no process pid).
func RemoveDeadProxies(ctx context.Context, c *toxi.Client) ([]string, error) {
	names, err := c.Names(ctx, "eb")
	if err != nil {
		return nil, err
	}
	var dead []string
	for _, name := range names {
		if pid, ok := proxyOwner(name); ok && !alive(pid) {
			dead = append(dead, name)
		}
	}
	if len(dead) == 0 {
		return nil, nil
	}
	if err := c.Delete(ctx, dead...); err != nil {
		return nil, err
	}
	return dead, nil
}

// proxyOwner is the harness pid in a proxy's name, "eb<pid>-c<cluster>-<rand>-<from>-<to>" (kept.go).
func proxyOwner(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "eb")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
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
