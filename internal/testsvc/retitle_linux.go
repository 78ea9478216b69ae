package testsvc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
)

// retitle writes over this process's environment area, as servers that set
// their process title do (they reuse argv's and environ's memory): from now
// on /proc/PID/environ shows zeros, and an SVCCTL_INSTANCE marker is gone.
// The area's bounds are fields 50 and 51 of /proc/self/stat; the write goes
// through /proc/self/mem.
func retitle() error {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return err
	}
	f := bytes.Fields(b[bytes.LastIndexByte(b, ')')+1:]) // f[0] is field 3
	if len(f) < 49 {
		return fmt.Errorf("retitle: /proc/self/stat has %d fields", len(f)+2)
	}
	start, err1 := strconv.ParseUint(string(f[47]), 10, 64)
	end, err2 := strconv.ParseUint(string(f[48]), 10, 64)
	if err1 != nil || err2 != nil || end <= start {
		return fmt.Errorf("retitle: env area %s-%s", f[47], f[48])
	}
	mem, err := os.OpenFile("/proc/self/mem", os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer mem.Close()
	_, err = mem.WriteAt(make([]byte, end-start), int64(start))
	return err
}
