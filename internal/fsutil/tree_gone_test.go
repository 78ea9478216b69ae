package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

// A file listed by the walk and renamed away before it is judged (the
// agent's state.json temporary file, renamed into place while a CLI checks
// the tree) is not a problem: the Windows run refused the state dir with
// "check permissions of ...\.state.json.tmp-NNN: File not found".
func TestCheckEntryGoneAfterListing(t *testing.T) {
	root := t.TempDir()
	tmp := filepath.Join(root, ".state.json.tmp-1")
	if err := os.WriteFile(tmp, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) != 1 {
		t.Fatalf("ReadDir = %v, %v", entries, err)
	}
	d := entries[0]
	fi, err := d.Info() // the listing's look, as WalkDir's caller would have
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(root, "state.json")); err != nil {
		t.Fatal(err)
	}
	if problem, walkErr := checkEntry(root, tmp, infoEntry{d, fi}, nil, os.Geteuid()); problem != nil || walkErr != nil {
		t.Fatalf("an entry renamed away after the listing: problem %v, walk error %v; want neither", problem, walkErr)
	}
	// The root itself gone is an error, not an empty tree.
	if _, walkErr := checkEntry(root, root, nil, os.ErrNotExist, os.Geteuid()); walkErr == nil {
		t.Fatal("the root gone was not an error")
	}
}

// infoEntry is a DirEntry whose Info is the one taken at listing time (on
// Unix os.ReadDir's Info would Lstat again and see the file gone first).
type infoEntry struct {
	os.DirEntry
	fi os.FileInfo
}

func (e infoEntry) Info() (os.FileInfo, error) { return e.fi, nil }
