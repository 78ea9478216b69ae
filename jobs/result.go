package jobs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
	"svcctl/internal/runas"
	"svcctl/runtrace"
)

// A job may report its own verdict (docs/configuration.md, "A job's own
// verdict"), so that a job whose rule is "a transient downstream timeout is
// recorded as skipped with its reason, not retried" can say so. Every run
// gets SVCCTL_RESULT, the path of a file in a directory of its own; the job
// may write one line there:
//
//	skipped REASON: words
//	failed REASON: words
//
// REASON is [a-z0-9-]{1,40}; it is stored as the reason job.REASON (the
// namespace says whose word it is), the words as the detail's `why`, the
// exit code beside them. Without the file (or with an empty one) the exit
// code decides. A line that is neither is recorded as such: failed/
// exit-nonzero with the exit code kept and `result_error` saying what was
// wrong: a job that tried to say something is never recorded as fine when
// its words could not be read.

// EnvResult is the variable that names the result file.
const EnvResult = "SVCCTL_RESULT"

// maxResult bounds what is read of the file: one line, not a report.
const (
	maxResult      = 4 << 10
	maxResultWords = 500
)

// resultLine is compiled at its first use, not at every start of every
// svc-ctl process (`{1,40}` alone is tens of KiB of program).
var resultLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(skipped|failed) ([a-z0-9-]{1,40})(?::\s*(.*))?$`) })

// resultFile is one run's SVCCTL_RESULT: a directory of the run's own,
// owned by the job's user when it runs as another, inside a parent only the
// agent's user may write (a system agent's: root's, 0711, outside the state
// dir, whose rules refuse other owners; resultparent_*.go). The job can
// create its file and nothing else: it cannot rename its directory away
// and put a link to another in its place (the parent is not its to write),
// and the file is read through the pinned parent and directory, never
// through a link, and only if it is a regular file with one link owned by
// the job's user or the agent's (a job must not make the agent read the
// first line of a root-only file named result).
type resultFile struct {
	parent    *fsutil.Dir
	name      string // the run's directory in parent
	dir, path string
	owners    fsutil.Owners
}

// newResultFile makes the directory for one run; id is the job's user
// (nil: the agent's own).
func newResultFile(id *runas.Identity) (*resultFile, error) {
	parent, err := resultParent()
	if err != nil {
		return nil, fmt.Errorf("result file for %s: %w", EnvResult, err)
	}
	b := make([]byte, 8)
	rand.Read(b)
	name := "run-" + hex.EncodeToString(b)
	if err := parent.Mkdir(name, 0o700); err != nil {
		return nil, fmt.Errorf("result file for %s: %w", EnvResult, err)
	}
	var uids []int
	if id != nil && id.UID != uint32(os.Geteuid()) {
		if err := parent.Lchown(name, int(id.UID), int(id.GID)); err != nil {
			os.RemoveAll(parent.Join(name))
			return nil, fmt.Errorf("result file for %s: give %s to %s: %w", EnvResult, parent.Join(name), id.Username, err)
		}
		uids = append(uids, int(id.UID))
	}
	return &resultFile{parent: parent, name: name, dir: parent.Join(name), path: filepath.Join(parent.Join(name), "result"),
		owners: fsutil.TrustedOwners(uids...)}, nil
}

// env adds SVCCTL_RESULT to a job's environment (a copy).
func (r *resultFile) env(env map[string]string) map[string]string {
	out := make(map[string]string, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	out[EnvResult] = r.path
	return out
}

// read returns the line the job wrote ("" when it wrote none) and removes
// the directory (os.RemoveAll removes what the job left in it without
// following a link). The run's directory is opened in the pinned parent
// and the file in it, neither through a link, and the file is checked on
// its descriptor before a byte is read.
func (r *resultFile) read() (string, error) {
	defer os.RemoveAll(r.dir)
	dir, err := r.parent.Sub(r.name)
	if err != nil {
		return "", err
	}
	defer dir.Close()
	f, err := dir.Open("result", r.owners)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxResult))
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(strings.TrimLeft(string(b), "\r\n\t "), "\n")
	return strings.TrimSpace(line), nil
}

// applyResult turns what the job wrote into the run's verdict. It applies
// only to a run whose command exited by itself: a timeout, an interruption
// or a start that failed is svc-ctl's own verdict.
func applyResult(res *Result, line string, readErr error, red *redact.Redactor) {
	if res.Reason != runtrace.ReasonCompleted && res.Reason != runtrace.ReasonExitNonzero {
		return
	}
	code := res.ExitCode
	if res.Reason == runtrace.ReasonCompleted {
		code = 0
	}
	if readErr != nil {
		invalidResult(res, code, "the result file could not be read: "+readErr.Error(), red)
		return
	}
	if line == "" {
		return
	}
	m := resultLine().FindStringSubmatch(line)
	if m == nil {
		invalidResult(res, code, fmt.Sprintf("the line in %s is not `skipped REASON: words` or `failed REASON: words` (REASON: a-z, 0-9 and -, at most 40): %q",
			EnvResult, clip(line, 200)), red)
		return
	}
	res.Outcome = runtrace.Outcome(m[1])
	res.Reason = runtrace.JobReason(m[2])
	res.ExitCode = code
	res.Detail = map[string]any{"exit_code": code, "reported_by": "the job (" + EnvResult + ")"}
	if words := strings.TrimSpace(m[3]); words != "" {
		res.Detail["why"] = red.String(clip(words, maxResultWords))
	}
}

func invalidResult(res *Result, code int, why string, red *redact.Redactor) {
	res.Outcome, res.Reason, res.ExitCode = runtrace.OutcomeFailed, runtrace.ReasonExitNonzero, code
	res.Detail = map[string]any{"exit_code": code, "result_error": red.String(why)}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
