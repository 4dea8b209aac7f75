package harness

import "time"

// SetHoldEvents makes the harness ask the nodes for their clocks once n
// events are held (holdEvents), for the rest of the test.
func SetHoldEvents(t interface{ Cleanup(func()) }, n int) {
	old := holdEvents
	holdEvents = n
	t.Cleanup(func() { holdEvents = old })
}

// SetFDLimit makes the harness take n for this process's limit on open
// files (fdLimit), for the rest of the test: a small cluster then needs
// several Toxiproxy servers.
func SetFDLimit(t interface{ Cleanup(func()) }, n uint64) {
	old := fdLimit
	fdLimit = func() (uint64, bool) { return n, true }
	t.Cleanup(func() { fdLimit = old })
}

// ClaimDir writes the owner file (this process's pid) into a trial's
// directory, as a trial does (claimDir).
func ClaimDir(dir string) error { return claimDir(dir) }

// SetMaxLinks makes the harness take n for the most links one host was
// measured to link (maxLinks), for the rest of the test: a small complete
// graph is then beyond one host.
func SetMaxLinks(t interface{ Cleanup(func()) }, n int) {
	old := maxLinks
	maxLinks = n
	t.Cleanup(func() { maxLinks = old })
}

// SetMisestimate adds offs[h] to host h's clock estimate, and so to the
// t0 its nodes are told (misestimate), for the rest of the test.
func SetMisestimate(t interface{ Cleanup(func()) }, offs []time.Duration) {
	old := misestimate
	misestimate = offs
	t.Cleanup(func() { misestimate = old })
}

// SetCausalOrder turns the happens-before order of a clocked trial's
// events on or off (causalOrder), for the rest of the test.
func SetCausalOrder(t interface{ Cleanup(func()) }, on bool) {
	old := causalOrder
	causalOrder = on
	t.Cleanup(func() { causalOrder = old })
}
