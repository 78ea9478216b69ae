package runtrace

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestRunbookListsEveryReason: the runbook's tables of reason codes
// (docs/runbook.md, "Reason codes") and Reasons name the same codes, each
// under its outcome, so a person finds every code a row can hold and no
// code the ledger would refuse.
func TestRunbookListsEveryReason(t *testing.T) {
	b, err := os.ReadFile("../docs/runbook.md")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[Outcome]map[Reason]bool{}
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|")
	for _, s := range strings.Split(string(b), "\n#")[1:] {
		heading, body, _ := strings.Cut(s, "\n")
		o := Outcome(strings.TrimSpace(strings.TrimPrefix(heading, "## ")))
		if o != OutcomeOK && o != OutcomeSkipped && o != OutcomeFailed {
			continue
		}
		documented[o] = map[Reason]bool{}
		for _, m := range row.FindAllStringSubmatch(body, -1) {
			documented[o][Reason(m[1])] = true
		}
	}
	if len(documented) != 3 {
		t.Fatalf("docs/runbook.md has reason tables for %d outcomes, want ### ok, ### skipped and ### failed", len(documented))
	}
	for o, rs := range Reasons {
		for _, r := range rs {
			if !documented[o][r] {
				t.Errorf("%s/%s is a reason code (reasons.go) with no row in docs/runbook.md's ### %s table: say what it means and where to look next", o, r, o)
			}
			delete(documented[o], r)
		}
	}
	for o, rs := range documented {
		for r := range rs {
			t.Errorf("docs/runbook.md's ### %s table lists %q, which Reasons does not accept for %s: remove the row or add the code", o, r, o)
		}
	}
}
