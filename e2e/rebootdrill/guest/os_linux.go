package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// openSerial opens the evidence port at 115200 baud with output processing
// off, so long markers are not slowed to the default 9600 baud.
func openSerial(path string) (io.Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|unix.O_NOCTTY, 0)
	if err != nil {
		return nil, fmt.Errorf("open evidence port: %w", err)
	}
	fd := int(f.Fd())
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return f, nil // not a tty (a file in a test): write as is
	}
	t.Cflag = t.Cflag&^unix.CBAUD | unix.B115200
	t.Ispeed, t.Ospeed = unix.B115200, unix.B115200
	t.Oflag &^= unix.OPOST
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, t); err != nil {
		return f, fmt.Errorf("configure evidence port: %w", err)
	}
	return f, nil
}

// bootTime is the kernel's boot time in unix seconds (btime in /proc/stat).
func bootTime() (int64, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("read boot time: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse btime: %w", err)
			}
			return n, nil
		}
	}
	return 0, fmt.Errorf("no btime in /proc/stat")
}

// bootID is the kernel's id of this boot, read as svc-ctl reads it for the
// rows it writes, but by the drill's own code.
func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", fmt.Errorf("read boot id: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return ""
	}
	return unix.ByteSliceToString(u.Release[:])
}

func killProcess(pid int) error { return unix.Kill(pid, unix.SIGKILL) }

// power syncs the disks and asks systemd to reboot or power off without
// waiting for it: this process is a unit that the shutdown stops.
func (d *drill) power(action string) {
	d.emit(markerFor(action))
	unix.Sync()
	if out, err := exec.Command("systemctl", "--no-block", action).CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "drill-guest: systemctl %s: %v: %s\n", action, err, out)
	}
}
