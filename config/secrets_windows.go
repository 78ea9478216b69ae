package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"

	"svcctl/internal/fsutil"
)

// fileReadMask is any right that reads a file's contents.
const fileReadMask = windows.FILE_READ_DATA | windows.GENERIC_READ | windows.GENERIC_ALL

// readableByOthers names the broad groups (Users, Authenticated Users,
// Everyone) whose access list entries let them read path, and the icacls
// that leaves it to Administrators and SYSTEM; "" when none can.
func readableByOthers(path string) (who, fix string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", "", fmt.Errorf("check who can read %s: %w", path, err)
	}
	names, err := fsutil.BroadWriters(abs, fileReadMask)
	if err != nil {
		return "", "", fmt.Errorf("check who can read %s: %w", path, err)
	}
	if len(names) == 0 {
		return "", "", nil
	}
	return strings.Join(names, ", "), fmt.Sprintf(`icacls "%s" /inheritance:r /grant:r Administrators:F SYSTEM:F`, abs), nil
}
