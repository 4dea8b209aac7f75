package harness

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
