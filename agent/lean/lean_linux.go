package lean

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// trimExecutable unmaps the resident pages of the executable's read-only
// mappings (its code, r-xp, and read-only data, r--p) with MADV_DONTNEED,
// and returns how many bytes those mappings span. The pages stay in the
// page cache; the next touch maps them again (a minor fault). Writable
// mappings are never touched: for those DONTNEED would discard the
// program's own data.
func trimExecutable() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, fmt.Errorf("read /proc/self/exe: %w", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("read /proc/self/maps: %w", err)
	}
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		lo, hi, ok := readOnlyMappingOf(sc.Text(), exe)
		if !ok {
			continue
		}
		// The raw call takes the range as numbers: these pages are the
		// program's own code, never a Go object.
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, lo, hi-lo, unix.MADV_DONTNEED); errno != 0 {
			return total, fmt.Errorf("madvise %x-%x: %w", lo, hi, errno)
		}
		total += int64(hi - lo)
	}
	return total, sc.Err()
}

// readOnlyMappingOf parses one /proc/self/maps line and returns its range
// when it maps exe read-only (r-xp or r--p).
func readOnlyMappingOf(line, exe string) (lo, hi uintptr, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || strings.Join(f[5:], " ") != exe || (f[1] != "r-xp" && f[1] != "r--p") {
		return 0, 0, false
	}
	a, b, found := strings.Cut(f[0], "-")
	if !found {
		return 0, 0, false
	}
	l, err1 := strconv.ParseUint(a, 16, 64)
	h, err2 := strconv.ParseUint(b, 16, 64)
	if err1 != nil || err2 != nil || h <= l {
		return 0, 0, false
	}
	return uintptr(l), uintptr(h), true
}
