package main

import (
	"bytes"
	"fmt"
	"net"

	"github.com/electbench/electbench/nodes/live/harness"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/workloads"
)

// runHosts reads the hosts of agents started by hand that a run's live
// nodes are dealt to: --hosts FILE, or the hosts: section of its
// scenarios; nil for neither. The flag and a section together are
// refused rather than one silently winning, and so are scenarios whose
// live trials would want different hosts: one harness serves the run.
func runHosts(flag string, live []*workloads.Spec) (*harness.Hosts, error) {
	var with, without *workloads.Spec
	for _, s := range live {
		switch {
		case s.Hosts == nil:
			if without == nil {
				without = s
			}
		case with == nil:
			with = s
		case !bytes.Equal(s.Hosts, with.Hosts) || s.HostsDir != with.HostsDir:
			return nil, badInputf("scenarios %s and %s: hosts: sections that differ: a run's live trials share one set of hosts", with.Scenario, s.Scenario)
		}
	}
	switch {
	case with != nil && flag != "":
		return nil, badInputf("--hosts with scenario %s's hosts: section: the nodes run on the hosts of one or the other; drop the flag or the section", with.Scenario)
	case with != nil && without != nil:
		return nil, badInputf("scenario %s has a hosts: section and scenario %s none: a run's live trials share one set of hosts", with.Scenario, without.Scenario)
	case with != nil:
		h, err := harness.ParseHosts(with.Hosts, with.HostsDir)
		if err != nil {
			return nil, badInputf("scenario %s: hosts: %w", with.Scenario, err)
		}
		return h, nil
	case flag != "":
		h, err := harness.ReadHosts(flag)
		if err != nil {
			return nil, badInputf("--hosts: %w", err)
		}
		return h, nil
	}
	return nil, nil
}

// hostsSource names where a run's hosts come from, for its refusals.
func hostsSource(flag string, live []*workloads.Spec) string {
	if flag != "" {
		return "--hosts"
	}
	for _, s := range live {
		if s.Hosts != nil {
			return fmt.Sprintf("scenario %s's hosts: section", s.Scenario)
		}
	}
	return ""
}

// checkHostsCuts refuses, before anything runs, a kernel cut between
// hosts of agents started by hand when two of them share an address
// (agents on one machine's loopback): a rule dropping what one address
// sends to itself would cut each host from itself, and the agent would
// refuse it mid-trial, an infrastructure error.
func checkHostsCuts(live []*workloads.Spec, hosts *harness.Hosts, source string) error {
	byAddr := map[string]string{}
	var a, b string
	for _, h := range hosts.Hosts {
		addr, _, err := net.SplitHostPort(h.Agent)
		if err != nil {
			continue // ReadHosts checked it
		}
		if other, ok := byAddr[addr]; ok && a == "" {
			a, b = other, h.Name
		}
		byAddr[addr] = h.Name
	}
	if a == "" {
		return nil
	}
	for _, s := range live {
		for i := range s.Faults {
			if f := &s.Faults[i]; f.KindInfo() != nil && f.KindInfo().Link == (trial.HostCut{}) {
				return badInputf("%s: fault %d (%s, line %d): hosts %s and %s of %s share an address, and a kernel cut between hosts drops what one address sends to another: give each host an address of its own", s.Scenario, i, f.Kind, f.Line, a, b, source)
			}
		}
	}
	return nil
}
