package testsvc

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// Build compiles cmd/testsvc once per test process into dir and returns the
// binary's path. Tests call it from TestMain with a temporary dir.
func Build(dir string) (string, error) {
	buildOnce.Do(func() {
		out := filepath.Join(dir, "testsvc")
		if runtime.GOOS == "windows" {
			out += ".exe"
		}
		root, err := moduleRoot()
		if err != nil {
			buildErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", out, "./internal/testsvc/cmd/testsvc")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("build testsvc: %w: %s", err, b)
			return
		}
		buildPath = out
	})
	return buildPath, buildErr
}

func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the svcctl module")
	}
	return filepath.Dir(mod), nil
}
