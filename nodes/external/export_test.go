package external

// Spawned is how many programs the package has started.
func Spawned() int64 { return spawned.Load() }

// IdlePids lists the process ids of the programs kept for a next trial.
func IdlePids() []int {
	idle.Lock()
	defer idle.Unlock()
	var out []int
	for _, ps := range idle.procs {
		for _, p := range ps {
			out = append(out, p.cmd.Process.Pid)
		}
	}
	return out
}
