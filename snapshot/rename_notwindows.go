//go:build !windows

package snapshot

// renameWhileOpen: a file open for its fsync can be renamed meanwhile.
const renameWhileOpen = true
