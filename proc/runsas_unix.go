//go:build unix

package proc

import (
	"os"

	"svcctl/internal/runas"
)

// runsAs is the uid an instance started as id runs as: id's, else this
// process's effective uid.
func runsAs(id *runas.Identity) *uint32 {
	uid := uint32(os.Geteuid())
	if id != nil {
		uid = id.UID
	}
	return &uid
}
