package main

import (
	"bytes"
	"fmt"

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

// checkHostsFaults refuses the host faults a run on hosts of agents
// started by hand cannot do: a host(h) beyond its n hosts, and a cut
// between hosts, whose packets go through the controller's proxies
// rather than from host to host, so that no rule on a host could cut
// them (a --netns host runs a Toxiproxy server of its own: there it is
// built).
func checkHostsFaults(live []*workloads.Spec, n int, source string) error {
	if err := checkHostFaults(live, n); err != nil {
		return err
	}
	for _, s := range live {
		for i := range s.Faults {
			if f := &s.Faults[i]; f.KindInfo() != nil && f.KindInfo().Link == (trial.HostCut{}) {
				return badInputf("%s: fault %d (%s, line %d): through %s the links' proxies are this controller's, so no packet goes from host to host for an agent to cut: use partition with host(h) groups (a cut at Toxiproxy's stream level), or --netns K --agents", s.Scenario, i, f.Kind, f.Line, source)
			}
		}
	}
	return nil
}
