package install

import "os"

// privateDir: a directory. Windows has no mode bits (Go reports 0777 for
// every directory): who may open it is its ACL, which this check does not
// read.
func privateDir(fi os.FileInfo) bool { return fi.IsDir() }
