//go:build !linux

// Command noopenat2 filters a Linux system call; elsewhere it says so.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "noopenat2: Linux only")
	os.Exit(2)
}
