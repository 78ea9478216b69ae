package config

import (
	"fmt"
	"time"
)

// checker validates the decoded raw structs and converts them into Config,
// in one pass so a value is parsed once. Every problem is recorded against
// its path in the document and checking goes on, so that a person gets every
// problem of the file at once.
type checker struct {
	doc  *document
	base string // directory that relative paths are resolved against
	user bool   // a per-user config (UserMode): only it may name a desktop channel
	// deniedEnvFileOK: an env_file this process may not read is listed in
	// unread instead of failing the load (LoadToRead).
	deniedEnvFileOK bool
	unread          []string
	// ext holds the tables kinds registered by their own files may be in,
	// as maps by path (extTables): their keys are not in raw.go's structs.
	ext map[string]map[string]any
}

// fail records a problem at path, on the line where path (or its nearest
// enclosing table) is written.
func (c *checker) fail(path, format string, args ...any) {
	c.doc.fail(path, c.doc.line(path), format, args...)
}

// duration parses the duration at path, or def when it is left out.
// No duration in the file may be negative.
func (c *checker) duration(path string, v *durationText, def string) (time.Duration, string, bool) {
	s := def
	if v != nil {
		s = string(*v)
	}
	d, err := ParseDuration(s)
	if err != nil {
		c.fail(path, "%v", err)
		return 0, s, false
	}
	if d < 0 {
		c.fail(path, "%q is negative: use 0s or more", s)
		return 0, s, false
	}
	return d, s, true
}

// nonNegative is duration without the "did it parse" flag.
func (c *checker) nonNegative(path string, v *durationText, def string) time.Duration {
	d, _, _ := c.duration(path, v, def)
	return d
}

// positive is a duration that must be greater than zero (timeouts: a zero
// timeout would fail every check at once).
func (c *checker) positive(path string, v *durationText, def string) time.Duration {
	d, s, ok := c.duration(path, v, def)
	if ok && d == 0 {
		c.fail(path, "%q is not allowed: use a duration greater than 0, like %q", s, def)
	}
	return d
}

// atLeast is a duration with a lower bound.
func (c *checker) atLeast(path string, v *durationText, def, least string) time.Duration {
	d, s, ok := c.duration(path, v, def)
	if bound, _ := ParseDuration(least); ok && d < bound {
		c.fail(path, "%q is too short: use at least %s", s, least)
	}
	return d
}

// text returns *v, or def when it is left out.
func text(v *string, def string) string {
	if v == nil {
		return def
	}
	return *v
}

func boolOr(v *bool, def bool) bool {
	if v == nil {
		return def
	}
	return *v
}

// oneOf checks a value against a closed list of words.
func (c *checker) oneOf(path, v string, allowed ...string) {
	for _, a := range allowed {
		if v == a {
			return
		}
	}
	c.fail(path, "invalid value %q: use %s", v, orList(allowed))
}

// orList renders ["a","b","c"] as "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	out := words[0]
	for _, w := range words[1 : len(words)-1] {
		out += ", " + w
	}
	return fmt.Sprintf("%s or %s", out, words[len(words)-1])
}

// prefixed is words, each with prefix before it.
func prefixed(prefix string, words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = prefix + w
	}
	return out
}
