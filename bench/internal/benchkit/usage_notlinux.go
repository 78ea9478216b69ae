//go:build !linux

package benchkit

import (
	"errors"
	"fmt"
	"time"
)

// Mem is a process's resident memory in bytes (Linux only).
type Mem struct {
	RSS, Anon, File, Shmem, HWM int64
}

var errNoProc = errors.New("needs Linux /proc")

// MemOf needs /proc: it fails on this OS.
func MemOf(pid int) (Mem, error) { return Mem{}, fmt.Errorf("memory of pid %d: %w", pid, errNoProc) }

// CPUOf needs /proc: it fails on this OS.
func CPUOf(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("cpu time of pid %d: %w", pid, errNoProc)
}

// Mapping is the resident size of one mapping of a process (Linux only).
type Mapping struct {
	Name, Perms string
	RSS         int64
}

// MappingsOf needs /proc: it fails on this OS.
func MappingsOf(pid int) ([]Mapping, error) {
	return nil, fmt.Errorf("mappings of pid %d: %w", pid, errNoProc)
}

// PSSOf needs /proc: it fails on this OS.
func PSSOf(pid int) (int64, error) { return 0, fmt.Errorf("pss of pid %d: %w", pid, errNoProc) }

// SchedCPUOf needs /proc: it fails on this OS.
func SchedCPUOf(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("cpu time of pid %d: %w", pid, errNoProc)
}
