//go:build !linux

// Command soak needs Linux: it watches processes and memory through /proc.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench/soak: Linux only (it reads /proc)")
	os.Exit(2)
}
