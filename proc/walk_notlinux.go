//go:build !linux

package proc

// newProcReader: readProc as is.
func newProcReader() func(int32) (procInfo, error) { return readProc }

// sinceLastWalk: children are found from a listing here (walkable is false).
func (l *looker) sinceLastWalk() bool { return false }

// lastWalkPIDs: no PID order to read here; every Walk reads its members.
func (l *looker) lastWalkPIDs() {}

func pidExists(int32) bool { return false }
