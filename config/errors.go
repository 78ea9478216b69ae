package config

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Error is one problem found in a configuration file: where it is and what to
// do about it. Load and Parse return every Error they find at once, joined
// with errors.Join and sorted by line; get them back with errors.As (the
// first) or by unwrapping the join (all of them).
type Error struct {
	File string // the file name as given to Load or Parse
	Line int    // 1-based; 0 when the problem has no single line
	// Key names the setting, as a dotted path. Services and jobs are named by
	// their name when it is valid (`service "proxy".health.timeout`), else by
	// their position (`service[2].command`, counting from 0). Empty for
	// syntax errors.
	Key string
	Msg string // what is wrong and what to write instead
}

// Error renders `file:line: service "proxy": health.timeout: msg`.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(splitTableKey(e.Key))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// splitTableKey turns `service "proxy".health.timeout` into
// `service "proxy": health.timeout`, so the table reads as the subject of
// the sentence. Keys outside [[service]], [[job]] and [[notify]] are left alone.
func splitTableKey(key string) string {
	for _, table := range []string{"service", "job", "notify"} {
		rest, ok := strings.CutPrefix(key, table)
		if !ok || rest == "" {
			continue
		}
		var end int
		switch {
		case strings.HasPrefix(rest, ` "`):
			end = strings.IndexByte(rest[2:], '"') + 3
		case rest[0] == '[':
			end = strings.IndexByte(rest, ']') + 1
		default:
			continue
		}
		if end <= 0 || end >= len(rest) || rest[end] != '.' {
			return key
		}
		return key[:len(table)+end] + ": " + rest[end+1:]
	}
	return key
}

// errorList collects the problems of one file.
type errorList []*Error

func (l *errorList) add(e *Error) { *l = append(*l, e) }

// hasLine reports whether a problem is already recorded on line (used to
// drop go-toml's own report of something the schema check already named).
func (l errorList) hasLine(line int) bool {
	for _, e := range l {
		if e.Line == line {
			return true
		}
	}
	return false
}

// err sorts by line (stable, so problems on one line keep their order) and
// joins; nil when the list is empty.
func (l errorList) err() error {
	if len(l) == 0 {
		return nil
	}
	sort.SliceStable(l, func(i, j int) bool { return l[i].Line < l[j].Line })
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errors.Join(errs...)
}

// Errors returns every *Error inside err (a Load or Parse result), in order.
func Errors(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if e, ok := err.(*Error); ok {
			out = append(out, e)
			return
		}
		switch u := err.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// errorf is a shorthand for the checks.
func errorf(file string, line int, key, format string, args ...any) *Error {
	return &Error{File: file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)}
}
