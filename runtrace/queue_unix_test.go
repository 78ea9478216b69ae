//go:build unix

package runtrace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func wantPrivate(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != mode {
		t.Fatalf("%s: %v %v, want mode %#o", path, st, err, mode)
	}
}

// TestWriteFailureCauses: each condition a person can act on is told apart,
// from the errno where the error carries one.
func TestWriteFailureCauses(t *testing.T) {
	dir := t.TempDir()
	pe := func(e syscall.Errno) error {
		return fmt.Errorf("write state.json: %w", &fs.PathError{Op: "write", Path: "x", Err: e})
	}
	for _, c := range []struct {
		err  error
		want Cause
		ok   bool
	}{
		{pe(syscall.ENOSPC), CauseDiskFull, true},
		{pe(syscall.EDQUOT), CauseQuota, true},
		{pe(syscall.EROFS), CauseReadOnly, true},
		{pe(syscall.EACCES), CausePermission, true},
	} {
		got, ok := writeFailure(c.err, dir)
		if got != c.want || ok != c.ok {
			t.Errorf("writeFailure(%v) = %q, %v; want %q, %v", c.err, got, ok, c.want, c.ok)
		}
	}
}

// TestImportRefusesForeignSpill: a spill file others could have written is
// never imported (it would plant rows and events in a privileged ledger).
func TestImportRefusesForeignSpill(t *testing.T) {
	path := dbPath(t)
	s := openT(t, path)
	spill := filepath.Join(t.TempDir(), "spill")
	q, _ := newQueue(t, s, QueueOptions{SpillDirs: []string{spill}})
	refuseWrites(t, s, true)
	q.Record(ctxb, Run{JobID: "agent", Trigger: TriggerStartup, StartedAt: t0, Outcome: OutcomeOK, Reason: ReasonStarted})
	res := q.Close(ctxb)
	if err := os.Chmod(res.SpillPath, 0o666); err != nil {
		t.Fatal(err)
	}
	refuseWrites(t, s, false)
	q2, _ := newQueue(t, s, QueueOptions{SpillDirs: []string{spill}})
	files, err := q2.ImportSpills()
	if len(files) != 0 || err == nil || !strings.Contains(err.Error(), "chmod go-w") {
		t.Fatalf("ImportSpills = %+v, %v; want a refusal naming the fix", files, err)
	}
	if _, err := os.Stat(res.SpillPath); err != nil {
		t.Errorf("refused spill file was not left in place: %v", err)
	}
}
