package testsvc

import (
	"sync"

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
