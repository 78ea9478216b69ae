//go:build !unix

package testsvc

import (
	"fmt"
	"io"
)

func launchServer(mode, _ string, _ []string, _, stderr io.Writer) int {
	fmt.Fprintf(stderr, "testsvc: --launch %s: unix only\n", mode)
	return 2
}

func startWorkers(int, int, bool, io.Writer) error { return fmt.Errorf("unix only") }

func shutdownOnSignals(interface{ Logf(string, ...any) }, *holders) {}

func ignoreTermSignal() {}
