package workloads

import (
	"strings"
	"testing"
)

// oneLine's shortcut returns what its rule (the words of s, one space
// between them) does.
func TestOneLine(t *testing.T) {
	for _, s := range []string{"", "a", "agreement: p1 decided 3 while p2 decided 4", " a", "a ", "a  b", "a\tb",
		"a\nb", "\u00a0a", "a\u2028b", "é b", " ", "  ", "a b c"} {
		if got, want := oneLine(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
	}
}
