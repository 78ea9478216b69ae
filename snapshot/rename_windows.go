package snapshot

// renameWhileOpen: Windows refuses to rename a file svc-ctl holds open
// without FILE_SHARE_DELETE, so the log's fsync ends before the rename.
const renameWhileOpen = false
