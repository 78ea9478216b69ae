//go:build unix && !linux && !darwin

package fsutil

// openNoLinks walks the path element by element: these systems have no
// one call that follows no link on any element.
func openNoLinks(path string) (int, error) { return walkDir(path, false) }
