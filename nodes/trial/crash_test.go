package trial

import "testing"

// The disputes column's entries (reports' "disputes"): a node's accusation
// names the accused; a dial that met another identity names the path.
func TestDisputeString(t *testing.T) {
	for _, tc := range []struct {
		d    Dispute
		want string
	}{
		{Dispute{By: 2, Of: 1}, "2>1"},
		{Dispute{By: 0, Of: 1, Path: true}, "0>path(0>1)"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}
