package probe

import (
	"maps"
	"slices"
	"strings"

	"svcctl/internal/redact"
)

// redactor is the rule set a Result is written with: the caller's (every env
// value of the configuration), or one that knows the spec's own env.
func (s Spec) redactor() *redact.Redactor {
	if s.Redact != nil {
		return s.Redact
	}
	return redact.New(slices.Collect(maps.Values(s.Env))...)
}

// displayTarget is what the Result shows as Target: the spec's target with
// every secret it may carry replaced.
func displayTarget(s Spec, r *redact.Redactor) string {
	if s.Kind == KindExec {
		return strings.Join(r.Args(s.Argv), " ")
	}
	return r.String(s.Target)
}
