//go:build unix

package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxLinkHops bounds Canonical on a loop of links (as the kernel's 40).
const maxLinkHops = 40

// Canonical resolves, in the absolute path, the symbolic links that only an
// administrator could have made and could change: a link owned by root (or
// one of trusted: a per-user svc-ctl's own uid) in a directory such an owner
// owns that no one else may write, or that is sticky (macOS's /var ->
// /private/var and /tmp -> /private/tmp, Debian's /var/run -> /run). Any
// other link is left as written, with everything after it: pinning the
// directory (OpenDir) then refuses it, naming the link. Elements that do not
// exist yet are kept as written. A relative path is returned as it is.
//
// Config calls it once, at load, for paths outside the state dir (a
// service's log): from then on the path has no link a user could swap.
func Canonical(path string, trusted ...int) string {
	if !filepath.IsAbs(path) {
		return path
	}
	owners := append([]int{0}, trusted...)
	done := "/"
	rest := splitPath(filepath.Clean(path))
	for hops := 0; len(rest) > 0; {
		elem := rest[0]
		rest = rest[1:]
		switch elem {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done) // done has no link left: .. is lexical here
			continue
		}
		next := filepath.Join(done, elem)
		fi, err := os.Lstat(next)
		if err != nil {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		target, err := os.Readlink(next)
		if hops++; hops > maxLinkHops || err != nil || !adminLink(done, fi, owners) {
			return filepath.Join(append([]string{next}, rest...)...)
		}
		if filepath.IsAbs(target) {
			done = "/"
		}
		rest = append(splitPath(target), rest...)
	}
	return done
}

func splitPath(p string) []string { return strings.Split(strings.TrimPrefix(p, "/"), "/") }

// adminLink reports whether the link described by fi, in the directory dir,
// is one only owners could have made and could change.
func adminLink(dir string, fi fs.FileInfo, owners []int) bool {
	if o, ok := Owner(fi); !ok || !slices.Contains(owners, o) {
		return false
	}
	di, err := os.Lstat(dir)
	if err != nil {
		return false
	}
	if o, ok := Owner(di); !ok || !slices.Contains(owners, o) {
		return false
	}
	return di.Mode().Perm()&0o022 == 0 || di.Mode()&fs.ModeSticky != 0
}
