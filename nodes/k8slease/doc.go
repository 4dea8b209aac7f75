// Package k8slease registers k8s-lease: Kubernetes leader election
// (k8s.io/client-go/tools/leaderelection v0.37.2, the election of
// kube-scheduler, kube-controller-manager and thousands of operators) run
// unchanged as a live-only algorithm (nodes.Library,
// nodes.Algorithm.LiveOnly): the library runs its own goroutines, reads
// real clocks and jitters its retries from the global math/rand, so it
// cannot be stepped by the simulator.
//
// The lowest-ranked process is the store (store.go): a small server of the
// coordination.k8s.io/v1 Lease API (GET, CREATE, UPDATE with
// resourceVersion conflicts, as the API server answers them), never a
// candidate. Every other process is a candidate (library.go): the
// library's LeaderElector with its resourcelock.LeaseLock and a
// coordination/v1 clientset whose http.RoundTripper (transport.go) sends
// each request to the store as a nodes.Message of its verb's kind (GET,
// CREATE, UPDATE; answered by GETResp, CREATEResp, UPDATEResp), so the
// runtime counts them and every fault acts on them. Decisions come from
// the library's OnNewLeader and OnStartedLeading callbacks; the store
// decides the holder its Lease names.
//
// Its timing knobs (lease-duration, renew-deadline, retry-period) are
// parameters in the harness's units, checked by
// leaderelection.NewLeaderElector when the run is planned.
// docs/LIBRARIES.md says how the library is driven and derives its
// failover bounds.
package k8slease
