// Package svcname holds the one rule for the names of services and jobs:
// 1 to 63 characters from a-z, 0-9, '.', '_' and '-', starting with a
// letter or digit. The names become directory names under
// <state>/services/, job ids in run_trace, cgroup and job object names, so
// they stay short, lower case and free of path separators on every OS.
//
// It is a loop, not a regexp: `[a-z0-9._-]{0,62}` compiles to 62 nested
// alternatives, about 45 KiB of heap for each copy of the rule, built at
// every start of every svc-ctl process and kept by the agent for its
// lifetime.
package svcname

// MaxLen is the longest name.
const MaxLen = 63

// Valid reports whether s is a name a service or job may have.
func Valid(s string) bool {
	if len(s) == 0 || len(s) > MaxLen || !alnum(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// ValidWithSuffix reports whether s is prefix + a valid name + "-" + 12
// lower-case hex digits (the random part svc-ctl adds to a cgroup's or a
// job object's name).
func ValidWithSuffix(s, prefix string) bool {
	const hexLen = 12
	if len(s) < len(prefix)+1+1+hexLen || s[:len(prefix)] != prefix || s[len(s)-hexLen-1] != '-' {
		return false
	}
	for _, c := range []byte(s[len(s)-hexLen:]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return Valid(s[len(prefix) : len(s)-hexLen-1])
}

func alnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
