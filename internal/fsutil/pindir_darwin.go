package fsutil

import "golang.org/x/sys/unix"

// openNoLinks opens the directory at path in one call that follows no link
// on any element (O_NOFOLLOW_ANY, macOS 11). Where the flag is refused, the
// walk does the same element by element.
func openNoLinks(path string) (int, error) {
	if !walkOnly {
		for {
			fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW_ANY, 0)
			switch err {
			case unix.EINTR:
				continue
			case unix.EINVAL, unix.ENOTSUP:
			default:
				return fd, err
			}
			break
		}
	}
	return walkDir(path, false)
}
