package ui

// rundll32's URL handler opens the default browser without cmd.exe's
// `start` (a shell, which would also parse & in the URL).
func openerArgv(url string) []string {
	return []string{"rundll32", "url.dll,FileProtocolHandler", url}
}
