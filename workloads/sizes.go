package workloads

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxNodes bounds a cluster size: far beyond what a run can use, small
// enough that a typo cannot ask for all of memory.
const MaxNodes = 1 << 26

// ParseNodes reads "N", "A..B" (A, 2A, 4A, ... up to B, and B itself if not a
// power-of-two multiple of A) or a list "3,5,8". Every size must be at least
// 2: an election needs two processes.
func ParseNodes(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if a, b, ok := strings.Cut(s, ".."); ok {
		lo, err := parseSize(a)
		if err != nil {
			return nil, err
		}
		hi, err := parseSize(b)
		if err != nil {
			return nil, err
		}
		if hi < lo {
			return nil, fmt.Errorf("--nodes %q: the range ends below its start", shortText(s))
		}
		var out []int
		for n := lo; n <= hi; n *= 2 {
			out = append(out, n)
		}
		if out[len(out)-1] != hi {
			out = append(out, hi)
		}
		return out, nil
	}
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		n, err := parseSize(part)
		if err != nil {
			return nil, err
		}
		if seen[n] {
			return nil, fmt.Errorf("--nodes %q: size %d listed twice", shortText(s), n)
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

func parseSize(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("--nodes: %q is not a whole number", shortText(s))
	}
	if n < 2 {
		return 0, fmt.Errorf("--nodes: %d is too few; an election needs at least 2 processes", n)
	}
	if n > MaxNodes {
		return 0, fmt.Errorf("--nodes: %d is more than the %d processes electbench supports", n, MaxNodes)
	}
	return n, nil
}
