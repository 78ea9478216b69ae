package proc

import (
	"encoding/binary"
	"testing"
)

// The macOS KERN_PROCARGS2 layout, as a known-answer vector: argc, the
// executable path, its alignment padding, argv, then the environment (and
// the strings the kernel appends). Only a whole entry is a marker.
func TestEnvAreaProcArgs2(t *testing.T) {
	b := binary.LittleEndian.AppendUint32(nil, 2)
	b = append(b, "/usr/local/bin/server\x00\x00\x00\x00"...)
	b = append(b, "server\x00SVCCTL_INSTANCE=forged-in-argv\x00"...) // argv: never read as environment
	b = append(b, "HOME=/var/db\x00SVCCTL_INSTANCE=abc123\x00\x00\x00ptr_munge=\x00"...)
	env, ok := envArea(b)
	if !ok {
		t.Fatal("envArea refused a well-formed buffer")
	}
	if !hasEntry(env, "SVCCTL_INSTANCE=abc123") || !hasEntry(env, "HOME=/var/db") {
		t.Fatalf("environment %q: want HOME and the marker", env)
	}
	for _, not := range []string{"SVCCTL_INSTANCE=forged-in-argv", "SVCCTL_INSTANCE=abc", "SVCCTL_INSTANCE=abc1234", "server"} {
		if hasEntry(env, not) {
			t.Errorf("environment %q holds %q", env, not)
		}
	}
	// A process that wrote its title over its arguments and environment.
	title := binary.LittleEndian.AppendUint32(nil, 1)
	title = append(title, "/usr/local/bin/server\x00\x00postgres: main process   \x00\x00\x00\x00\x00\x00"...)
	if env, ok := envArea(title); !ok || hasEntry(env, "SVCCTL_INSTANCE=abc123") {
		t.Fatalf("a retitled process: %q, %v", env, ok)
	}
	for _, bad := range [][]byte{nil, {1, 0, 0}, binary.LittleEndian.AppendUint32(nil, 3), append(binary.LittleEndian.AppendUint32(nil, 5), "/x\x00a\x00b"...)} {
		if _, ok := envArea(bad); ok {
			t.Errorf("envArea(%q) accepted a truncated buffer", bad)
		}
	}
}
