package trial

import "github.com/electbench/electbench/nodes"

// ErrInfrastructure is wrapped by the error of a trial that failed because
// of what runs it, not of the algorithm: a Toxiproxy server that stopped
// answering, a process that could not be started, a host out of
// resources. Such a trial is no result: it is not recorded as one, the run
// stops and exits with its own code, and --resume runs it again. It is
// nodes.ErrInfrastructure, the one value, named here for the runtimes and
// there for the algorithm packages (a node program that never starts).
var ErrInfrastructure = nodes.ErrInfrastructure
