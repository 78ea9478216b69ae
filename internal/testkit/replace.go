package testkit

import (
	"os"
	"strings"
	"sync"
	"testing"
)

// Replace sets *p to v for the rest of the test and puts the old value back
// when it ends (t.Cleanup): the one way a test swaps a package-level seam
// (an OS call behind a variable, a flag like fsutil's walkOnly), so no test
// forgets to restore one.
func Replace[T any](t testing.TB, p *T, v T) {
	t.Helper()
	old := *p
	*p = v
	t.Cleanup(func() { *p = old })
}

// processWide is held by the ProcessWide test that runs, for as long as it
// runs; holder is its name (its subtests run under it without taking it
// again).
var (
	processWide sync.Mutex
	holderMu    sync.Mutex
	holder      string
)

// ProcessWide marks a test that changes state the whole test process
// shares — signal dispositions, the umask, the environment, the working
// directory, a subreaper — which any test running beside it would see; what
// says which. It fails the test when it runs in parallel (it or a parent
// called t.Parallel), makes a later t.Parallel panic, and holds a
// process-wide lock until the test ends, so no two such tests overlap. Go
// runs a binary's tests that are not parallel one at a time, and the
// parallel ones only after them: a ProcessWide test overlaps no other test.
// A test that only sets environment variables needs no more than t.Setenv,
// which is the testing package's own mark of the same kind.
func ProcessWide(t *testing.T, what string) {
	t.Helper()
	// t.Setenv refuses a parallel test and makes a later t.Parallel refuse:
	// the testing package's own guard for one kind of process-wide state,
	// borrowed for all of them. The variable is unset again at once (t.Setenv
	// restores its absence at the end): the children tests start must not
	// see it.
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s changes process-wide state (%s): it must not run in parallel: %v", t.Name(), what, r)
			}
		}()
		t.Setenv(processWideEnv, what)
		os.Unsetenv(processWideEnv)
	}()
	holderMu.Lock()
	h := holder
	holderMu.Unlock()
	if h != "" && strings.HasPrefix(t.Name(), h+"/") {
		return // a parent test holds it
	}
	processWide.Lock()
	holderMu.Lock()
	holder = t.Name()
	holderMu.Unlock()
	t.Cleanup(func() {
		holderMu.Lock()
		holder = ""
		holderMu.Unlock()
		processWide.Unlock()
	})
}

// processWideEnv is the variable ProcessWide sets (and unsets at once) for
// the testing package's guard against t.Parallel.
const processWideEnv = "SVCCTL_TEST_PROCESS_WIDE"
