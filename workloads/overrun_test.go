package workloads

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"

	_ "github.com/electbench/electbench/nodes/bully"
)

// overruns counts the election messages a trial took longer than its
// bound D to deliver: the simulator's count agrees with the trace's sends
// and deliveries, none under a bounded model, some under exponential
// latency, whose D is its p99.9. The simulator never reruns.
func TestSimOverruns(t *testing.T) {
	for _, tc := range []struct {
		latency string
		some    bool
	}{{"uniform(1ms,9ms)", false}, {"exponential(5ms)", true}} {
		s := spec(t, "bully", "24", "random", "all", tc.latency, 1)
		var trace bytes.Buffer
		row := RunSim(s.Plan()[0], &trace)
		d := time.Duration(row.DS * float64(time.Second))
		sent := map[int64]int64{}
		var over int64
		sc := bufio.NewScanner(&trace)
		for sc.Scan() {
			var e struct {
				T  int64  `json:"t"`
				Ev string `json:"ev"`
				ID int64  `json:"id"`
			}
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				t.Fatal(err)
			}
			switch e.Ev {
			case "send":
				sent[e.ID] = e.T
			case "recv":
				if time.Duration(e.T-sent[e.ID]) > d {
					over++
				}
			}
		}
		if !row.Overruns.IsSet() || row.Overruns.Get() != over || (over > 0) != tc.some || row.Reruns.IsSet() {
			t.Errorf("%s: overruns %+v, reruns %+v; the trace shows %d over D = %v", tc.latency, row.Overruns, row.Reruns, over, d)
		}
	}
}
