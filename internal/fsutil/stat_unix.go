//go:build unix

package fsutil

import (
	"io/fs"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A stat as the fs package shows it, and the facts read from one: file
// identity, owner, mode, mtime.

// statInfo is an fs.FileInfo of an entry a Dir looked at (fstatat).
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string { return s.name }

func (s *statInfo) Size() int64 { return s.st.Size }

func (s *statInfo) Mode() fs.FileMode { return statMode(&s.st) }

func (s *statInfo) ModTime() time.Time { return statMtime(&s.st) }

func (s *statInfo) IsDir() bool { return s.Mode().IsDir() }

func (s *statInfo) Sys() any { return &s.st }

func statMode(st *unix.Stat_t) fs.FileMode {
	m := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	}
	if st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}

// fileKey is the device and inode of fi, from either stat type.
func fileKey(fi fs.FileInfo) ([2]uint64, bool) {
	switch st := fi.Sys().(type) {
	case *unix.Stat_t:
		return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
	case *syscall.Stat_t:
		return [2]uint64{uint64(st.Dev), uint64(st.Ino)}, true
	}
	return [2]uint64{}, false
}

// statOwner is the owner in a Dir's FileInfo.
func statOwner(fi fs.FileInfo) (int, bool) {
	if st, ok := fi.Sys().(*unix.Stat_t); ok {
		return int(st.Uid), true
	}
	return 0, false
}

func statMtime(st *unix.Stat_t) time.Time { return time.Unix(st.Mtim.Unix()) }
