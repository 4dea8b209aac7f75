package k8slease

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/electbench/electbench/nodes"
)

// library is one process of a k8s-lease cluster: the store if it is the
// lowest-ranked process (the first of Peers), a candidate otherwise. Every
// process computes the same store from the same peer list.
type library struct {
	*settings
	role nodes.Library
}

func (l *library) Start(host nodes.Host) error {
	peers := host.Peers()
	if len(peers) < 2 {
		return fmt.Errorf("k8s-lease needs the store and at least one candidate, not %d processes", len(peers))
	}
	if peers[0].Rank == host.Self() {
		l.role = &store{}
	} else {
		l.role = &candidate{settings: l.settings, store: peers[0].ID}
	}
	return l.role.Start(host)
}

func (l *library) Deliver(from nodes.PeerID, m nodes.Message) { l.role.Deliver(from, m) }
func (l *library) Stop()                                      { l.role.Stop() }

// candidate runs the library's LeaderElector, unchanged, with a LeaseLock
// whose clientset reaches the store through roundTripper. When the
// elector stops leading (its renewal failed for a renew deadline) Run
// returns, and the candidate starts a new elector at once, as a
// controller's pod that exits on losing its lease is restarted: it stays
// in the election until the node stops it.
type candidate struct {
	*settings
	store  nodes.PeerID
	host   nodes.Host
	rt     *roundTripper
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu      sync.Mutex
	stopped bool // no decision after Stop: a callback's goroutine may outlast it
}

func (c *candidate) Start(host nodes.Host) error {
	c.host = host
	var self nodes.PeerID = -1
	for _, p := range host.Peers() {
		if p.Rank == host.Self() {
			self = p.ID
		}
	}
	if self < 0 {
		return fmt.Errorf("process %v is missing from its own peer list", host.Self())
	}
	c.rt = newRoundTripper(host, c.store, c.renew)
	client, err := coordinationv1client.NewForConfigAndClient(&rest.Config{
		Host:          "http://store",
		ContentConfig: rest.ContentConfig{ContentType: "application/json"},
		QPS:           -1, // no client-side throttling: the library's own pace only
		Timeout:       c.renew,
	}, &http.Client{Transport: c.rt, Timeout: c.renew})
	if err != nil {
		c.rt.close()
		return fmt.Errorf("k8s-lease: the coordination/v1 client: %w", err)
	}
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Name: leaseName, Namespace: leaseNamespace},
		Client:     client,
		LockConfig: resourcelock.ResourceLockConfig{Identity: strconv.Itoa(int(self))},
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), c.logger()))
	c.cancel = cancel
	c.wg.Add(1)
	go c.run(ctx, lock)
	return nil
}

// run keeps the candidate in the election until ctx ends.
func (c *candidate) run(ctx context.Context, lock resourcelock.Interface) {
	defer c.wg.Done()
	self := lock.Identity()
	for ctx.Err() == nil {
		le, err := leaderelection.NewLeaderElector(c.config(lock, leaderelection.LeaderCallbacks{
			// The decision is made as the library tells its user, on the
			// goroutine it starts for each callback; Decide never blocks.
			OnStartedLeading: func(context.Context) { c.decide(c.host.Self()) },
			OnStoppedLeading: func() {},
			OnNewLeader: func(id string) {
				// Its own name comes with OnStartedLeading.
				if r, ok := rankOf(c.host.Peers(), id); ok && id != self {
					c.decide(r)
				}
			},
		}))
		if err != nil { // validated when the run was planned
			fmt.Fprintf(c.host.Log(), "k8s-lease: %v\n", err)
			return
		}
		le.Run(ctx)
	}
}

// logger is where the library's klog lines go: the node's log at the
// run's verbosity, or nowhere.
func (c *candidate) logger() logr.Logger {
	if c.verbosity < 0 {
		return logr.Discard()
	}
	return funcr.New(func(prefix, args string) {
		fmt.Fprintf(c.host.Log(), "k8s-lease %s %s\n", prefix, args)
	}, funcr.Options{Verbosity: c.verbosity})
}

// decide records a belief unless the candidate has stopped.
func (c *candidate) decide(r nodes.Rank) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.host.Decide(r)
	}
}

func (c *candidate) Deliver(_ nodes.PeerID, m nodes.Message) { c.rt.deliver(m) }

// Stop ends the elector (its context) and the requests in flight, and
// returns once the election loop has.
func (c *candidate) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
	c.cancel()
	c.rt.close()
	c.wg.Wait()
}
