package shrink

import (
	"context"
	"fmt"

	"github.com/electbench/electbench/chaos"
	"github.com/electbench/electbench/nodes/trial"
	"github.com/electbench/electbench/reports"
	"github.com/electbench/electbench/workloads"
)

// timerArms runs sc's one trial once more on the simulator, as run does,
// and returns its timer arms (trial.EvArm): the lengths of the timers the
// fault story tells ("p0's timer T1 of 2.5T expired"), which the trace
// does not hold, so that no trace hash changed when they were added.
func timerArms(ctx context.Context, sc *chaos.Scenario) ([]reports.TimerArm, error) {
	c, err := clone(sc)
	if err != nil {
		return nil, err
	}
	spec, err := workloads.FromScenario(c)
	if err != nil {
		return nil, fmt.Errorf("timer arms of scenario %s: %w", sc.Name, err)
	}
	plan := spec.Plan()
	if len(plan) != 1 {
		return nil, fmt.Errorf("timer arms of scenario %s: %d trials, want one", sc.Name, len(plan))
	}
	var arms armSink
	plan[0].Watch(ctx, workloads.Sim, func(*trial.Config) trial.Sink { return &arms })
	return arms.list, nil
}

// armSink keeps a trial's timer arms.
type armSink struct{ list []reports.TimerArm }

func (a *armSink) Kinds() trial.Kinds { return trial.KindsOf(trial.EvArm) }

func (a *armSink) Event(e *trial.Event) {
	a.list = append(a.list, reports.TimerArm{P: int(e.P), Timer: e.Timer.String(), At: int64(e.At), For: int64(e.ID)})
}
