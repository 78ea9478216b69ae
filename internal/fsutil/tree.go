package fsutil

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// maxTreeProblems bounds how many problems CheckTree reports: past that,
// the fix is the same chown -R / chmod -R for all of them.
const maxTreeProblems = 10

// CheckTree runs CheckPrivate over root and everything under it, without
// following any link (a link anywhere is itself a problem). Problems are
// reported up to a bound, then counted, with the recursive fix.
func CheckTree(root string, uid int) error {
	var errs []error
	more := 0
	walkErr := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		var fi fs.FileInfo
		if err == nil {
			fi, err = d.Info()
		}
		switch {
		case errors.Is(err, fs.ErrNotExist) && path != root:
			// Gone between the listing and the look (SQLite's -journal, a
			// temporary file renamed into place): nothing left to judge.
			return nil
		case err != nil:
			return err
		}
		if perr := CheckPrivateInfo(path, fi, uid); perr != nil {
			if len(errs) < maxTreeProblems {
				errs = append(errs, perr)
			} else {
				more++
			}
		}
		return nil
	})
	if walkErr != nil {
		errs = append(errs, fmt.Errorf("check %s: %w", root, walkErr))
	}
	if more > 0 {
		errs = append(errs, fmt.Errorf("%d more problems under %s (%w); to fix them all: chown -R %s %s && chmod -R go-w %s",
			more, root, ErrUntrusted, userName(uid), root, root))
	}
	return errors.Join(errs...)
}
