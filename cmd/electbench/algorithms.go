package main

// The algorithm families register themselves when imported.
import (
	_ "github.com/electbench/electbench/nodes/bully"
	_ "github.com/electbench/electbench/nodes/etcdraft"
	_ "github.com/electbench/electbench/nodes/hraft"
	_ "github.com/electbench/electbench/nodes/k8slease"
	_ "github.com/electbench/electbench/nodes/mutex"
	_ "github.com/electbench/electbench/nodes/quorum"
	_ "github.com/electbench/electbench/nodes/ring"
	_ "github.com/electbench/electbench/nodes/servers"
)
