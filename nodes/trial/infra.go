package trial

import "errors"

// ErrInfrastructure is wrapped by the error of a trial that failed because
// of what runs it, not of the algorithm: a Toxiproxy server that stopped
// answering, a process that could not be started, a host out of
// resources. Such a trial is no result: it is not recorded as one, the run
// stops and exits with its own code, and --resume runs it again.
var ErrInfrastructure = errors.New("infrastructure failure")
