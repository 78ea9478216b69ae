//go:build !unix && !windows

package svcenv

import "svcctl/internal/runas"

func base(id *runas.Identity) map[string]string { return map[string]string{} }

func defaultDir(*runas.Identity) string { return "/" }
