package config

import (
	"slices"
	"testing"
)

// NotifyKinds, read from raw.go's kind enum and then the kinds registered
// by their own files, is the one list of channel kinds: the constants code
// names raw.go's by are the same kinds, in the same order, and a
// registered kind has none (its file is the only code that names it);
// notify's own table is held to it by notify's TestKindsMatchConfig.
func TestNotifyKindsHaveTheirConstants(t *testing.T) {
	consts := []string{NotifyWebhook, NotifyNtfy, NotifyHealthchecks, NotifyDesktop, NotifyCommand, NotifyOTLP}
	var reg []string
	for _, e := range registeredIn(typeRawNotify) {
		reg = append(reg, e.name)
	}
	if !slices.Equal(NotifyKinds, append(consts, reg...)) {
		t.Errorf("notify kinds %v, the Notify* constants %v and the registered %v", NotifyKinds, consts, reg)
	}
}
