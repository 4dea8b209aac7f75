package mutex

import (
	"strconv"

	"github.com/electbench/electbench/nodes"
)

// entries is how many times the section is entered in a fault-free run
// of in: every initiator that is not crashed makes `requests` requests.
// ok is false when the figures do not apply (a fault, a bad parameter).
func entries(in nodes.TheoryInput) (requesters []int, perRequester int64, ok bool) {
	if in.Faulty || len(in.Crashed) > 0 {
		return nil, 0, false
	}
	perRequester = 1
	if s, set := in.Params["requests"]; set {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return nil, 0, false
		}
		perRequester = n
	}
	seen := map[int]bool{}
	for _, p := range in.Initiators {
		if !seen[p] {
			seen[p] = true
			requesters = append(requesters, p)
		}
	}
	return requesters, perRequester, true
}

// centralTheory: "entry costs 2 messages (request, grant), exit 1
// (release)" for every process but the coordinator, whose own entries cost
// none (ALGORITHMS.md, central).
func centralTheory(in nodes.TheoryInput) nodes.Theory {
	req, k, ok := entries(in)
	if !ok || in.Params["elect"] != "" && in.Params["elect"] != "highest" {
		return nodes.Theory{}
	}
	top := in.Ranks.Extreme(1, nil)
	var m int64
	for _, p := range req {
		if p != top {
			m += 3 * k
		}
	}
	return nodes.Theory{Messages: m}
}

// ricartTheory: 2(N−1) messages per entry.
func ricartTheory(in nodes.TheoryInput) nodes.Theory {
	req, k, ok := entries(in)
	if !ok {
		return nodes.Theory{}
	}
	return nodes.Theory{Messages: int64(len(req)) * k * 2 * int64(in.N-1)}
}

// maekawaTheory: 2K messages per entry and K per exit, for the basic
// algorithm when it does not deadlock (the inquire variant adds messages
// that depend on the schedule: no closed form).
func maekawaTheory(in nodes.TheoryInput) nodes.Theory {
	req, k, ok := entries(in)
	if !ok || in.Variant == "inquire" {
		return nodes.Theory{}
	}
	return nodes.Theory{Messages: int64(len(req)) * k * 3 * int64(votingSetSize(in.N))}
}
