package fsutil

import "golang.org/x/sys/unix"

// openNoLinks opens the directory at path in one call that follows no link
// on any element (openat2 RESOLVE_NO_SYMLINKS, Linux 5.6). Where the call
// is missing (ENOSYS) or a seccomp profile filters it (EPERM, as container
// runtimes answer for calls they do not know), the walk does the same
// element by element.
func openNoLinks(path string) (int, error) {
	if !walkOnly {
		how := &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
		for {
			fd, err := unix.Openat2(unix.AT_FDCWD, path, how)
			switch err {
			case unix.EINTR, unix.EAGAIN:
				continue
			case unix.ENOSYS, unix.EPERM:
			default:
				return fd, err
			}
			break
		}
	}
	return walkDir(path, false)
}
