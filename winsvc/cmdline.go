package winsvc

import "strings"

// EscapeArg quotes s the way Windows programs split their command line
// (CommandLineToArgvW), exactly as syscall.EscapeArg does on Windows; it is
// here so that command lines are rendered and tested on every OS.
func EscapeArg(s string) string {
	if s == "" {
		return `""`
	}
	if !strings.ContainsAny(s, "\"\\ \t") {
		return s
	}
	hasSpace := strings.ContainsAny(s, " \t")
	if !strings.ContainsAny(s, `"\`) {
		return `"` + s + `"`
	}
	var b strings.Builder
	if hasSpace {
		b.WriteByte('"')
	}
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			// Backslashes before a quote are doubled, then the quote escaped.
			b.WriteString(strings.Repeat(`\`, slashes+1))
			slashes = 0
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	if hasSpace {
		// Trailing backslashes would escape the closing quote: double them.
		b.WriteString(strings.Repeat(`\`, slashes))
		b.WriteByte('"')
	}
	return b.String()
}

// CommandLine joins exe and args into one Windows command line, as the SCM
// stores it in a service's BinaryPathName (mgr.CreateService does the same).
func CommandLine(exe string, args ...string) string {
	parts := make([]string, 0, len(args)+1)
	parts = append(parts, EscapeArg(exe))
	for _, a := range args {
		parts = append(parts, EscapeArg(a))
	}
	return strings.Join(parts, " ")
}

// Args joins args (without a program name) into a command-line tail, as Task
// Scheduler's <Arguments> wants it.
func Args(args ...string) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = EscapeArg(a)
	}
	return strings.Join(parts, " ")
}
