package harness_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/electbench/electbench/nodes"
	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/system"
	_ "github.com/electbench/electbench/nodes/servers"
)

// A server algorithm whose binary is not on PATH is refused before
// anything runs, naming the Debian package; any other algorithm passes.
func TestCheckSystemMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	a, _, err := nodes.Lookup("etcd-server")
	if err != nil {
		t.Fatal(err)
	}
	err = harness.CheckSystem(a)
	if !errors.Is(err, system.ErrMissing) || !strings.Contains(err.Error(), "apt-get install etcd-server") {
		t.Fatalf("CheckSystem without etcd on PATH = %v; want ErrMissing naming the package", err)
	}
	other := &nodes.Algorithm{Name: "raft"}
	if err := harness.CheckSystem(other); err != nil {
		t.Fatalf("CheckSystem(raft) = %v; want nil", err)
	}
}

// A temporary directory the members' uids cannot traverse is refused.
func TestCheckSystemPrivateTemp(t *testing.T) {
	a, _, err := nodes.Lookup("etcd-server")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := system.Etcd.Path(); err != nil {
		t.Fatal(err) // CI installs etcd (scripts/setup-servers.sh)
	}
	t.Setenv("TMPDIR", t.TempDir()) // go test's are 0700
	if err := harness.CheckSystem(a); err == nil || !strings.Contains(err.Error(), "set TMPDIR") {
		t.Fatalf("CheckSystem under a private TMPDIR = %v; want the refusal", err)
	}
}
