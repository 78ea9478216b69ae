package main

import (
	"io"
	"os"
	"strings"

	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/state"
)

// Colour, as people expect of a CLI at a terminal: only on a terminal, and
// never when NO_COLOR is set (no-color.org) or TERM is "dumb". Every
// colour is a 2-digit SGR code, so each coloured cell of a column gets the
// same 9 invisible bytes and text/tabwriter still aligns the columns; a
// cell that needs no colour gets the default one (39), for the same reason.

const (
	red     = "31"
	green   = "32"
	yellow  = "33"
	cyan    = "36"
	grey    = "90"
	noColor = "39"
)

// colourOn reports whether what is written to w may be coloured.
func colourOn(w io.Writer) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(w)
}

// paint colours s when on.
func paint(s, code string, on bool) string {
	if !on || code == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// stateColour is the colour of a service state.
func stateColour(st string) string {
	switch {
	case st == state.Healthy:
		return green
	case state.Held(st):
		return grey
	case st == state.Starting:
		return cyan
	case st == state.Unknown || st == "":
		return noColor
	}
	return red
}

// outcomeColour is the colour of a run's outcome.
func outcomeColour(o runtrace.Outcome) string {
	switch o {
	case runtrace.OutcomeOK:
		return green
	case runtrace.OutcomeSkipped:
		return yellow
	case runtrace.OutcomeFailed:
		return red
	case runtrace.OutcomeRunning:
		return cyan
	}
	return noColor
}

// checkColour is the colour of a verify verdict.
func checkColour(s string) string {
	switch s {
	case report.Pass:
		return green
	case report.Warn:
		return yellow
	case report.Fail:
		return red
	}
	return noColor
}

// paintLogLine colours the level of one of `logs agent`'s human lines
// ("2026-... WARN  event ..."): warnings yellow, errors red.
func paintLogLine(line string, on bool) string {
	if !on {
		return line
	}
	for level, code := range map[string]string{" WARN ": yellow, " ERROR ": red} {
		if i := strings.Index(line, level); i >= 0 && i < 40 {
			return line[:i+1] + paint(strings.TrimSpace(level), code, true) + line[i+len(level)-1:]
		}
	}
	return line
}
