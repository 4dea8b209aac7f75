package external

import (
	"fmt"
	"reflect"
	"sync"

	"github.com/electbench/electbench/nodes"
)

var (
	regMu      sync.Mutex
	registered = map[string]Spec{}
)

// Register validates spec and registers its algorithm with nodes, so that
// it runs by name beside the built-in ones (--algo chang-roberts,cr-py).
// Registering the same spec again is a no-op; another algorithm of the
// same name is an error. It returns the algorithm's name.
func Register(spec Spec) (string, error) {
	regMu.Lock()
	defer regMu.Unlock()
	if spec.Name == "" && len(spec.Command) > 0 {
		spec.Name = defaultName(spec.Command)
	}
	if old, ok := registered[spec.Name]; ok {
		if reflect.DeepEqual(old, spec) {
			return spec.Name, nil
		}
		return "", fmt.Errorf("external algorithm %s is already defined with another command or topology", spec.Name)
	}
	a, err := spec.Algorithm()
	if err != nil {
		return "", err
	}
	nodes.Register(a)
	registered[spec.Name] = spec
	return spec.Name, nil
}

func init() { nodes.SetExternalDefiner(define) }

// define registers a scenario's definition (nodes.DefineExternal).
func define(d nodes.ExternalDef) (*nodes.Algorithm, error) {
	topo, err := ParseTopology(d.Topology)
	if err != nil {
		return nil, err
	}
	name, err := Register(Spec{Name: d.Name, Command: d.Command, Dir: d.Dir, Topology: topo, Theory: d.Theory, Maintenance: d.Maintenance, StepTimeout: d.StepTimeout})
	if err != nil {
		return nil, err
	}
	a, _, err := nodes.Lookup(name)
	return a, err
}
