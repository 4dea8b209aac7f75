//go:build unix

package harness_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/trial"
)

// The version of toxiproxy-server the external test builds: the one go.mod
// requires.
const toxiproxyServer = "github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0"

// externalToxiproxy builds toxiproxy-server into a temporary GOBIN, starts
// it on a loopback port and returns its URL and process. A server that
// cannot be built fails the test: the module proxy that serves the project's
// own dependencies serves this one too.
func externalToxiproxy(t testing.TB) (string, *os.Process) {
	t.Helper()
	return startToxiproxy(t, toxiproxyBinary(t), "")
}

// toxiproxyBinary builds toxiproxy-server into a temporary GOBIN and
// returns its path.
func toxiproxyBinary(t testing.TB) string {
	t.Helper()
	gobin := t.TempDir()
	build := exec.Command("go", "install", toxiproxyServer)
	build.Env = append(os.Environ(), "GOBIN="+gobin)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cannot build toxiproxy-server (go install %s: %v): %s", toxiproxyServer, err, out)
	}
	return filepath.Join(gobin, "server")
}

// startToxiproxy starts the server bin on a loopback port (port, or one
// of the kernel's choosing if "") and returns its URL and process once it
// answers; the test's clean-up stops it.
func startToxiproxy(t testing.TB, bin, port string) (string, *os.Process) {
	t.Helper()
	for attempt := 0; ; attempt++ {
		// The server takes a port, not a listener: reserve one from the
		// kernel and hand it over (another process could take it in
		// between; then try again).
		port := port
		if port == "" {
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
			l.Close()
		}
		srv := exec.Command(bin, "-host", "127.0.0.1", "-port", port)
		srv.Env = append(os.Environ(), "LOG_LEVEL=error")
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { srv.Wait(); close(exited) }()
		t.Cleanup(func() {
			srv.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				srv.Process.Kill()
				<-exited
			}
		})
		url := "http://127.0.0.1:" + port
		c := toxi.NewClient(url)
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			select {
			case <-exited:
				deadline = time.Time{}
				continue
			default:
			}
			// A server built by go install says version "git" (the release
			// sets it with -ldflags); the module version is pinned above.
			if _, err := c.Version(context.Background()); err == nil {
				return url, srv.Process
			}
			time.Sleep(20 * time.Millisecond)
		}
		if attempt == 2 {
			t.Fatalf("toxiproxy-server did not answer on %s", url)
		}
	}
}

// cpu returns a process's user+system CPU time from /proc (Linux).
func cpu(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ = 100
}

// The same as TestChangRobertsMatchesSim against a real, external
// toxiproxy-server, driven through the same client; and a partition by
// disabled proxies, which must be released afterwards like everything else.
// It logs the harness's CPU time against the server's (the harness must
// stay small beside Toxiproxy's).
func TestExternalToxiproxy(t *testing.T) {
	opt := options(t)
	url, srv := externalToxiproxy(t)
	opt.Toxiproxy = url
	var infos []harness.Info
	opt.Observe = func(i harness.Info) { infos = append(infos, i) }
	r := runtime(t, opt)
	var self0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	srv0 := cpu(srv.Pid)
	checkChangRoberts(t, r)
	var self1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	used := time.Duration(self1.Utime.Nano() + self1.Stime.Nano() - self0.Utime.Nano() - self0.Stime.Nano())
	t.Logf("CPU over the chang-roberts trials: harness (this test process) %v, toxiproxy-server %v", used, cpu(srv.Pid)-srv0)

	r.Close()

	cfg := config(t, "bully", random(6, 1), everyone(6), 10*time.Millisecond)
	cfg.Faults = []trial.Fault{partition(halves(6), false)}
	r = runtime(t, opt)
	_, v, _ := run(t, r, cfg)
	if v.Violations == 0 {
		t.Errorf("halves partition: two leaders not flagged: %+v", v)
	}
	r.Close()
	checkReleased(t, toxi.NewClient(url), infos)
}

// The redirected link (#39 item 1): with an external Toxiproxy,
// whose API anyone may call, a proxy pointed at another node's listener
// between trials is found before the next trial and refused as an
// infrastructure error; no trial runs on it, so no honest node is blamed.
func TestExternalToxiproxyRedirectedIsRefused(t *testing.T) {
	opt := options(t)
	url, _ := externalToxiproxy(t)
	opt.Toxiproxy = url
	var infos []harness.Info
	opt.Observe = func(i harness.Info) { infos = append(infos, i) }
	r := runtime(t, opt)
	defer r.Close()
	ranks := random(4, 1)
	cfg := config(t, "chang-roberts", ranks, []int{lowest(ranks)}, 5*time.Millisecond)
	if _, v, _ := run(t, r, cfg); !v.Correct || !v.Live {
		t.Fatalf("the first trial: %+v", v)
	}
	info := infos[0]
	// Repoint the first proxy at a node it does not lead to.
	name, to := info.Proxies[0], ""
	c := toxi.NewClient(url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	states, err := c.States(ctx, info.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range info.NodeAddrs {
		if a != states[name].Upstream {
			to = a
			break
		}
	}
	if err := c.SetUpstream(ctx, name, to); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), cfg)
	if !errors.Is(err, trial.ErrInfrastructure) || !strings.Contains(fmt.Sprint(err), name) {
		t.Fatalf("a trial on a redirected proxy: result %v, error %v; want an infrastructure error naming %s", res != nil, err, name)
	}
}
