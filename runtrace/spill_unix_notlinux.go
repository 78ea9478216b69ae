//go:build unix && !linux

package runtrace

// runDir is root's per-boot runtime directory.
const runDir = "/var/run"
