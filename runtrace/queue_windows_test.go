package runtrace

import (
	"fmt"
	"io/fs"
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// wantPrivate: Windows keeps no Unix mode bits; the spill directory's
// privacy is its access list (fsutil.CheckPrivate).
func wantPrivate(t *testing.T, path string, _ os.FileMode) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// TestWriteFailureCauses: Windows' own codes for the same conditions.
func TestWriteFailureCauses(t *testing.T) {
	dir := t.TempDir()
	pe := func(e windows.Errno) error {
		return fmt.Errorf("write state.json: %w", &fs.PathError{Op: "write", Path: "x", Err: e})
	}
	for _, c := range []struct {
		err  error
		want Cause
	}{
		{pe(windows.ERROR_DISK_FULL), CauseDiskFull},
		{pe(windows.ERROR_HANDLE_DISK_FULL), CauseDiskFull},
		{pe(windows.ERROR_DISK_QUOTA_EXCEEDED), CauseQuota},
		{pe(windows.ERROR_WRITE_PROTECT), CauseReadOnly},
		{pe(windows.ERROR_ACCESS_DENIED), CausePermission},
	} {
		if got, ok := writeFailure(c.err, dir); got != c.want || !ok {
			t.Errorf("writeFailure(%v) = %q, %v; want %q", c.err, got, ok, c.want)
		}
	}
}
