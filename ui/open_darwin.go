package ui

func openerArgv(url string) []string { return []string{"open", url} }
