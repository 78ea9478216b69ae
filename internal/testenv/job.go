package testenv

import (
	"fmt"
	"strings"
)

// JobCommand is a job's command as TOML: the tests' service binary bin
// standing in for a program that exits with code after sleeping for sleep
// (and saying say), so no test needs /bin/sh, /bin/true or /bin/sleep.
func JobCommand(bin string, code int, sleep, say string) string {
	args := []string{fmt.Sprintf("%q", bin), `"--exit-now"`, fmt.Sprintf(`"%d"`, code)}
	if sleep != "" {
		args = append(args, `"--sleep"`, fmt.Sprintf("%q", sleep))
	}
	if say != "" {
		args = append(args, `"--say"`, fmt.Sprintf("%q", say))
	}
	return "[" + strings.Join(args, ", ") + "]"
}
