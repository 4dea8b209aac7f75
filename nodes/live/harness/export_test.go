package harness

// SetHoldEvents makes the harness ask the nodes for their clocks once n
// events are held (holdEvents), for the rest of the test.
func SetHoldEvents(t interface{ Cleanup(func()) }, n int) {
	old := holdEvents
	holdEvents = n
	t.Cleanup(func() { holdEvents = old })
}
