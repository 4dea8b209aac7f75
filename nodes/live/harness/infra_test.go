//go:build unix

package harness_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/live/harness/toxi"
	"github.com/electbench/electbench/nodes/trial"
)

// The stopped Toxiproxy (kill -STOP of an external server between
// trials of a run): an interrupted trial ends within 2 s of the interrupt,
// the next fails within 30 s with an infrastructure error (not a result),
// and once the server runs again (kill -CONT) trials run again and nothing
// the stopped trials asked the server for survives.
func TestStoppedToxiproxy(t *testing.T) {
	opt := options(t)
	url, srv := externalToxiproxy(t)
	opt.Toxiproxy = url
	r := runtime(t, opt)
	ranks := random(4, 1)
	cfg := config(t, "bully", ranks, []int{lowest(ranks)}, 5*time.Millisecond)
	run(t, r, cfg)

	if err := srv.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	resumed := false
	defer func() {
		if !resumed {
			srv.Signal(syscall.SIGCONT)
		}
	}()

	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan time.Time, 1)
	time.AfterFunc(500*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
	if _, err := r.Run(ctx, cfg); err == nil {
		t.Fatal("a trial on a stopped server succeeded")
	}
	select {
	case at := <-cancelled:
		if d := time.Since(at); d > 2*time.Second {
			t.Errorf("the interrupted trial took %v after the interrupt", d)
		}
	default:
		t.Fatal("the trial ended before the interrupt")
	}

	start := time.Now()
	_, err := r.Run(context.Background(), cfg)
	took := time.Since(start)
	if !errors.Is(err, trial.ErrInfrastructure) || !errors.Is(err, toxi.ErrUnreachable) {
		t.Fatalf("a trial on a stopped server: %v; want an infrastructure error", err)
	}
	if took > 30*time.Second {
		t.Errorf("the infrastructure error took %v", took)
	}
	t.Logf("stopped server: infrastructure error after %v: %v", took, err)

	if err := srv.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	resumed = true
	run(t, r, cfg)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	names, err := toxi.NewClient(url).Names(context.Background(), fmt.Sprintf("eb%d-", os.Getpid()))
	if err != nil || len(names) != 0 {
		t.Errorf("proxies of the run survive it: %v (%v)", names, err)
	}
}

// Issue 39, item 7: link set-up that does not complete within the set-up
// bound (a 128-node complete graph's, or here one proxy disabled as the
// nodes begin to link, so that its link never comes up) is an
// infrastructure error, never a result: before, the trial became a row
// with live=false and "waiting for the nodes to link: context deadline
// exceeded" that --resume kept.
func TestLinkSetupIsInfrastructure(t *testing.T) {
	srv, err := toxi.StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	client := toxi.NewClient(srv.URL())
	opt := options(t)
	opt.Toxiproxy = srv.URL()
	opt.SetupTimeout = 10 * time.Second
	disabled := ""
	opt.Progress = func(s harness.Setup) {
		if s.Stage != harness.Linking || disabled != "" {
			return
		}
		ctx := context.Background()
		names, err := client.Names(ctx, fmt.Sprintf("eb%d-", os.Getpid()))
		if err != nil || len(names) == 0 {
			t.Errorf("the trial's proxies: %v, %v", names, err)
			disabled = "none"
			return
		}
		disabled = names[0]
		if err := client.SetEnabled(ctx, disabled, false); err != nil {
			t.Errorf("disabling %s: %v", disabled, err)
		}
	}
	r := runtime(t, opt)
	ranks := random(4, 1)
	cfg := config(t, "bully", ranks, []int{lowest(ranks)}, 5*time.Millisecond)
	res, err := r.Run(context.Background(), cfg)
	if disabled == "" {
		t.Fatalf("the trial never reached its links: %v", err)
	}
	if !errors.Is(err, trial.ErrInfrastructure) || !strings.Contains(err.Error(), "link set-up did not complete, ") {
		t.Fatalf("a trial whose link %s never came up: %v (result %v); want an infrastructure error", disabled, err, res != nil)
	}
	t.Logf("proxy %s disabled: %v", disabled, err)
}
