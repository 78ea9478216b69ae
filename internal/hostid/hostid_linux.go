package hostid

import (
	"errors"
	"os"
	"strings"
)

// machineID is systemd's /etc/machine-id (dbus's copy where that is
// missing): 32 hex digits, made once per install.
func machineID() (string, error) {
	for _, p := range []string{"/etc/machine-id", "/var/lib/dbus/machine-id"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if id := strings.TrimSpace(string(b)); len(id) == 32 && id != strings.Repeat("0", 32) {
			return id, nil
		}
	}
	return "", errors.New("no machine-id")
}
