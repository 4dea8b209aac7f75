package harness

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"

	yaml "go.yaml.in/yaml/v4"

	"github.com/electbench/electbench/internal/boundedio"
	"github.com/electbench/electbench/pow"
)

// maxHostsFile bounds a hosts file: a few lines a host.
const maxHostsFile = 1 << 20

// Hosts is a hosts file (`electbench run --hosts FILE`): hosts of their
// own whose agents were started by hand (docs/multi-host.md), to which a
// live cluster's spawn indices are dealt in blocks, in the file's order.
// For example:
//
//	controller: ctl.id.key   # this controller's private key file
//	hosts:
//	  - name: a
//	    agent: 10.0.0.2:7000 # where the agent listens
//	    key: 5f0c…           # its public key, as it printed it (64 hex digits)
type Hosts struct {
	// Controller is this controller's private key file, as `electbench
	// pow mint -o FILE` writes FILE.key; every agent pins its identity
	// (`electbench agent --controller FILE`). A relative path is the hosts
	// file's directory's.
	Controller string `yaml:"controller"`
	// Proxies is optional and unused: it named the address of this
	// machine where the proxies listened before each host's agent ran
	// the proxies into its nodes. A file that gives it still reads (an
	// IP address, as then), and the run logs that it is not used.
	Proxies string `yaml:"proxies"`
	Hosts   []Host `yaml:"hosts"`

	key ed25519.PrivateKey // read from Controller
}

// Host is one host of a hosts file.
type Host struct {
	Name  string `yaml:"name"`  // for errors and logs
	Agent string `yaml:"agent"` // host:port its agent listens on; its nodes listen on the host's address
	Key   string `yaml:"key"`   // its agent's public key, hex: the only one accepted from it

	pub ed25519.PublicKey
}

// ReadHosts reads and checks a hosts file, strictly: an unknown field is
// an error, as is a host without a name, an agent address or a key, and
// the controller's key file must read.
func ReadHosts(path string) (*Hosts, error) {
	data, err := boundedio.ReadFile(path, maxHostsFile, "hosts file")
	if err != nil {
		return nil, err
	}
	h, err := ParseHosts(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// ParseHosts decodes and checks the fields of a hosts file, as ReadHosts
// does, from data: a file's, or a scenario's hosts: section (chaos), whose
// relative key paths are in dir.
func ParseHosts(data []byte, dir string) (*Hosts, error) {
	var h Hosts
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&h); err != nil {
		return nil, err
	}
	if err := h.check(dir); err != nil {
		return nil, err
	}
	return &h, nil
}

// check validates h and reads its keys; dir is the directory relative
// paths are in.
func (h *Hosts) check(dir string) error {
	if len(h.Hosts) == 0 {
		return errors.New("no host under hosts:")
	}
	if _, err := netip.ParseAddr(h.Proxies); h.Proxies != "" && err != nil {
		return fmt.Errorf("proxies: %q is not an IP address (the field is no longer used: leave it out): %w", h.Proxies, err)
	}
	if h.Controller == "" {
		return errors.New("controller: no key file (electbench pow mint -o FILE writes FILE.key)")
	}
	path := h.Controller
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	key, err := pow.ReadKeyFile(path)
	if err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	h.key = key
	names := map[string]bool{}
	for i := range h.Hosts {
		host := &h.Hosts[i]
		if host.Name == "" || names[host.Name] {
			return fmt.Errorf("hosts[%d]: name %q is empty or given twice", i, host.Name)
		}
		names[host.Name] = true
		if _, _, err := net.SplitHostPort(host.Agent); err != nil {
			return fmt.Errorf("host %s: agent %q: want host:port: %w", host.Name, host.Agent, err)
		}
		b, err := hex.DecodeString(host.Key)
		if err != nil || len(b) != ed25519.PublicKeySize {
			return fmt.Errorf("host %s: key %q: want the agent's public key, %d hex digits", host.Name, host.Key, 2*ed25519.PublicKeySize)
		}
		if bytes.Equal(b, key.Public().(ed25519.PublicKey)) {
			return fmt.Errorf("host %s: key is the controller's own", host.Name)
		}
		host.pub = b
	}
	return nil
}
