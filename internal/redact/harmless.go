package redact

import (
	"net/netip"
	"strings"
	"unicode/utf8"
)

// minSecretLen is the shortest value treated as a secret: shorter values
// ("1", "on", "dev") are flags and modes, and scrubbing them would shred
// every line they occur in.
const minSecretLen = 4

// Harmless reports whether an env value cannot be a secret, so that it is
// never scrubbed from evidence: under 4 characters, a number, an IP address
// (also with a port, or a CIDR prefix), localhost (also with a port),
// true/false/yes/no/on/off, or a list of these separated by commas or spaces
// (a NO_PROXY list). NO_PROXY=127.0.0.1 must not turn every probe target
// into http://[redacted]:8789/.
func Harmless(v string) bool {
	if utf8.RuneCountInString(v) < minSecretLen {
		return true
	}
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' })
	if len(parts) == 0 {
		return true // only separators
	}
	for _, p := range parts {
		if !harmlessPart(p) {
			return false
		}
	}
	return true
}

func harmlessPart(p string) bool {
	switch strings.ToLower(p) {
	case "true", "false", "yes", "no", "on", "off", "localhost":
		return true
	}
	if isNumber(p) {
		return true
	}
	if _, err := netip.ParseAddr(p); err == nil {
		return true
	}
	if _, err := netip.ParseAddrPort(p); err == nil {
		return true
	}
	if _, err := netip.ParsePrefix(p); err == nil {
		return true
	}
	if port, ok := strings.CutPrefix(strings.ToLower(p), "localhost:"); ok {
		return isDigits(port)
	}
	return false
}

// isNumber accepts an optionally signed decimal with at most one point:
// "8789", "-1", "0.5". Not hex, not exponents, not "inf": those could be
// parts of a token.
func isNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	whole, frac, hasPoint := strings.Cut(s, ".")
	if hasPoint {
		return isDigits(whole) && isDigits(frac)
	}
	return isDigits(whole)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
