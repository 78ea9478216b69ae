package hostid

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// machineID is the hardware UUID (IOPlatformUUID, what System Information
// shows), read with the gethostuuid(2) system call: no ioreg process and
// no cgo. Never the kern.uuid sysctl: that is the UUID of the kernel
// build, the same on every Mac of one macOS build and new after updates.
func machineID() (string, error) {
	var id [16]byte
	wait := unix.Timespec{Sec: 5} // only early in boot, before IOKit published it
	if _, _, errno := unix.Syscall(unix.SYS_GETHOSTUUID, uintptr(unsafe.Pointer(&id[0])), uintptr(unsafe.Pointer(&wait)), 0); errno != 0 {
		return "", fmt.Errorf("gethostuuid: %w", errno)
	}
	if id == [16]byte{} {
		return "", errors.New("gethostuuid: no hardware UUID")
	}
	return fmt.Sprintf("%X-%X-%X-%X-%X", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16]), nil
}
