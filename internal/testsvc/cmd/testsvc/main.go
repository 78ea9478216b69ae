// Command testsvc is internal/testsvc as a program, for tests and benchmarks
// that want a separate binary (a different exe from the test binary).
package main

import (
	"os"

	"svcctl/internal/testsvc"
)

func main() { os.Exit(testsvc.Main(os.Args[1:], os.Stdout, os.Stderr)) }
