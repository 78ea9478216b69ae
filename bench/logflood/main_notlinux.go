//go:build !linux

// Command logflood is Linux-only: it reads /proc/PID/io for the flood's
// write rate.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "logflood: Linux only (it reads /proc/PID/io)")
	os.Exit(2)
}
