//go:build !linux

// Command ownership needs Linux: it reads /proc, makes cgroups and tests
// the subreaper.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench/ownership: Linux only (it reads /proc)")
	os.Exit(2)
}
