//go:build unix && !linux

package svcenv

import "svcctl/internal/runas"

// defaultPath is launchd's default PATH for daemons (and a fair one for the
// BSDs).
const defaultPath = "/usr/bin:/bin:/usr/sbin:/sbin"

func osBase(m map[string]string, id *runas.Identity) {}
