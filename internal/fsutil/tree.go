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
		perr, err := checkEntry(root, path, d, err, uid)
		if perr != nil {
			if len(errs) < maxTreeProblems {
				errs = append(errs, perr)
			} else {
				more++
			}
		}
		return err
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

// checkEntry judges one entry of CheckTree's walk: a problem with it, or an
// error that ends the walk. An entry gone between the listing and the look
// (SQLite's -journal, state.json's temporary file renamed into place) has
// nothing left to judge: on Unix the look is the Lstat, on Windows also the
// open that reads the access list, so both may find it gone.
func checkEntry(root, path string, d fs.DirEntry, err error, uid int) (problem, walkErr error) {
	var fi fs.FileInfo
	if err == nil {
		fi, err = d.Info()
	}
	gone := func(err error) bool { return errors.Is(err, fs.ErrNotExist) && path != root }
	switch {
	case gone(err):
		return nil, nil
	case err != nil:
		return nil, err
	}
	if perr := CheckPrivateInfo(path, fi, uid); perr != nil && !gone(perr) {
		return perr, nil
	}
	return nil, nil
}
