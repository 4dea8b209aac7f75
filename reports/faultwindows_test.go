package reports

import (
	"math"
	"reflect"
	"testing"
)

func TestFaultWindows(t *testing.T) {
	inf := math.Inf(1)
	for cell, want := range map[string][]FaultWindow{
		"": nil,
		"t=2ms:partition(halves)[0,1|2,3];t=12ms:heal partition(halves)": {{From: 2, Until: 12, Label: "partition(halves)[0,1|2,3]"}},
		"t=0s:crash(3);t=5ms:pause(1);t=9ms:resume(1);t=20ms:restart(3)": {
			{From: 0, Until: 20, Label: "crash(3)"}, {From: 5, Until: 9, Label: "pause(1)"}},
		"t=1ms:loss[0>1];t=3ms:crash(2)":      {{From: 1, Until: inf, Label: "loss[0>1]"}, {From: 3, Until: inf, Label: "crash(2)"}},
		"t=1ms:crash(2);garbage;t=x:crash(1)": {{From: 1, Until: inf, Label: "crash(2)"}},
	} {
		got := FaultWindows(&Row{Faults: cell, TS: 0.001})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v\nwant %+v", cell, got, want)
		}
	}
}
