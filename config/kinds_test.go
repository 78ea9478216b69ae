package config

import (
	"slices"
	"testing"
)

// NotifyKinds, read from raw.go's kind enum, is the one list of channel
// kinds: the constants code names them by are the same kinds, in the same
// order; notify's own table is held to it by notify's TestKindsMatchConfig.
func TestNotifyKindsHaveTheirConstants(t *testing.T) {
	consts := []string{NotifyWebhook, NotifyNtfy, NotifyHealthchecks, NotifyDesktop, NotifyCommand, NotifyOTLP}
	if !slices.Equal(NotifyKinds, consts) {
		t.Errorf("raw.go's notify kinds %v, the Notify* constants %v", NotifyKinds, consts)
	}
}
