package install

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// plainArg is what needs no quoting in any format we write; compiled at
// its first use (install and the renderers only), not at every start.
var plainArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9/._:@+,=-]+$`) })

// systemdArg quotes one ExecStart argument. systemd expands % specifiers and
// $VARIABLES even inside quotes, so they are doubled.
func systemdArg(a string) string {
	if plainArg().MatchString(a) {
		return a
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, `%`, `%%`, `$`, `$$`)
	return `"` + r.Replace(a) + `"`
}

// systemdCommand joins exe and args into an ExecStart= value.
func systemdCommand(exe string, args []string) string {
	parts := []string{systemdArg(exe)}
	for _, a := range args {
		parts = append(parts, systemdArg(a))
	}
	return strings.Join(parts, " ")
}

// shQuote quotes one word for /bin/sh: in single quotes, each quote inside
// closed, escaped and opened again.
func shQuote(a string) string {
	if plainArg().MatchString(a) {
		return a
	}
	return `'` + strings.ReplaceAll(a, `'`, `'\''`) + `'`
}

// xmlText escapes text for a plist <string>.
func xmlText(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;", `'`, "&apos;").Replace(s)
}

// cronSafe refuses what a cron line would read as shell syntax or as its own
// syntax (% is a newline in crontab): the backstop line must be a plain argv.
func cronSafe(key, v string) error {
	if !plainArg().MatchString(v) {
		return fmt.Errorf("%s %q: a cron line runs through /bin/sh, so it may only hold letters, digits and / . _ : @ + , = -; move the file to such a path", key, v)
	}
	return nil
}

// openrcSafe refuses what OpenRC's command_args (evaluated by sh) could not
// carry inside single quotes.
func openrcSafe(key, v string) error {
	if strings.ContainsAny(v, "'\"$`\\") {
		return fmt.Errorf("%s %q: OpenRC evaluates command_args with sh, so quotes, $, ` and \\ are refused; move the file", key, v)
	}
	return nil
}
