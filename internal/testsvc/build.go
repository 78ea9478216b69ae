package testsvc

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"svcctl/internal/testutil"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Build compiles cmd/testsvc once per test process into dir and returns the
// binary's path (the prebuilt one under $SVCCTL_TEST_PREBUILT, where tests run
// without a Go toolchain: see testutil.GoBuild). Tests call it from TestMain
// with a temporary dir.
func Build(dir string) (string, error) {
	buildOnce.Do(func() {
		buildPath, buildErr = testutil.GoBuild(dir, "./internal/testsvc/cmd/testsvc")
	})
	return buildPath, buildErr
}

// RunTests is a TestMain for packages whose tests supervise testsvc: it builds
// the program into a temporary dir, sets *bin to its path, runs the tests and
// returns their exit code for TestMain to exit with.
func RunTests(m *testing.M, bin *string) int {
	dir, err := os.MkdirTemp("", "svcctl-testsvc-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	if *bin, err = Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}
