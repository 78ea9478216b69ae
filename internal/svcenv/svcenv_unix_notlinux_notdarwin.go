//go:build unix && !linux && !darwin

package svcenv

import "svcctl/internal/runas"

// basePath is launchd's default PATH for daemons, a fair one for the BSDs.
func basePath(uid int) string { return "/usr/bin:/bin:/usr/sbin:/sbin" }

func osBase(m map[string]string, id *runas.Identity) {}
