package svcenv

import (
	"os"
	"path/filepath"
	"strconv"

	"svcctl/internal/runas"
)

// basePath is systemd's default PATH for services.
func basePath(uid int) string { return "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" }

// localeFiles hold the system locale, first found wins.
var localeFiles = []string{"/etc/locale.conf", "/etc/default/locale"}

func osBase(m map[string]string, id *runas.Identity) {
	m["LANG"] = "C.UTF-8"
	for _, f := range localeFiles {
		if b, err := os.ReadFile(f); err == nil {
			if l := localeFrom(string(b)); l != "" {
				m["LANG"] = l
				break
			}
		}
	}
	uid := uidOf(id)
	if uid == 0 {
		return // a system service has no user session
	}
	rt := filepath.Join("/run/user", strconv.Itoa(uid))
	if fi, err := os.Stat(rt); err == nil && fi.IsDir() {
		m["XDG_RUNTIME_DIR"] = rt
		if _, err := os.Stat(filepath.Join(rt, "bus")); err == nil {
			m["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=" + filepath.Join(rt, "bus")
		}
	}
}
