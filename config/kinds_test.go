package config

import (
	"maps"
	"slices"
	"testing"
)

// NotifyKinds is the one list of channel kinds: every kind has its keys
// (notifyKinds) and nothing else has; notify's own table is held to it by
// notify's TestKindsMatchConfig.
func TestNotifyKindsHaveTheirKeys(t *testing.T) {
	got, want := slices.Sorted(maps.Keys(notifyKinds)), slices.Sorted(slices.Values(NotifyKinds))
	if !slices.Equal(got, want) {
		t.Errorf("kinds with keys %v, NotifyKinds %v", got, want)
	}
}
