//go:build !darwin && !windows

package ui

func openerArgv(url string) []string { return []string{"xdg-open", url} }
