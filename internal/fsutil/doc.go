// Package fsutil holds the few file-system primitives svc-ctl's state depends on:
// atomic replacement of a file, fsync of a directory, private directories, a
// bounded read of a log's last lines, and the trust rules of a privileged
// agent: OpenFile never follows a symbolic link (O_NOFOLLOW; on Windows a
// reparse point is refused) and opens only regular files, and CheckPrivate
// refuses what another user owns or can write, naming the path and the
// chown/chmod (icacls) that fixes it.
//
// Everything here creates private things: directories 0700 and files with the
// mode the caller names (state files are 0600). Nothing here ever deletes a
// caller's file, follows a configurable path into a shell, or reads a file
// without a byte bound when the file may be written by a supervised service.
package fsutil
