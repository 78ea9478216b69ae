package snapshot

import "os"

// permIs: Windows has no permission bits (Go reports 0666 for any writable
// file); who may read a file is its access list, which inherits the state
// dir's, so there is nothing for the copy to carry over.
func permIs(os.FileInfo, os.FileMode) bool { return true }
