package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// servicesOf lists the live processes running testsvcBin whose command line
// names one of addrs (a test's own --addr values: testutil.FreeAddr never
// hands out a port twice in a process), as pid -> command line.
func servicesOf(addrs []string) map[int]string {
	found := map[int]string{}
	if len(addrs) == 0 {
		return found
	}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		exe, err := os.Readlink(filepath.Join(d, "exe"))
		if err != nil || exe != testsvcBin {
			continue
		}
		raw, _ := os.ReadFile(filepath.Join(d, "cmdline"))
		args := strings.Split(string(bytes.TrimRight(raw, "\x00")), "\x00")
		line := strings.Join(args, " ")
		for _, a := range addrs {
			if strings.Contains(line, a) {
				pid, _ := strconv.Atoi(filepath.Base(d))
				found[pid] = line
				break
			}
		}
	}
	return found
}
