package chaos

import "github.com/electbench/electbench/nodes/trial"

// World is a running trial as a fault sees it at the instant it starts:
// selectors and partition shapes resolve against it. It is the runtimes'
// trial.View (both runtimes implement it); the name says what chaos uses it
// for.
type World = trial.View
