package benchkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Binaries are the real programs a benchmark drives.
type Binaries struct {
	SvcCtl  string
	TestSvc string
}

// Build returns the svc-ctl and testsvc binaries: the ones named by -svc-ctl
// and -testsvc, else fresh builds into the work directory (plain `go build`,
// as a person builds svc-ctl).
func (k *Kit) Build(ctx context.Context) (Binaries, error) {
	b := Binaries{SvcCtl: k.Common.SvcCtl, TestSvc: k.Common.TestSvc}
	var err error
	if b.SvcCtl == "" {
		if b.SvcCtl, err = goBuild(ctx, k.Dir, "svc-ctl", "./cmd/svc-ctl"); err != nil {
			return b, err
		}
	}
	if b.TestSvc == "" {
		if b.TestSvc, err = goBuild(ctx, k.Dir, "testsvc", "./internal/testsvc/cmd/testsvc"); err != nil {
			return b, err
		}
	}
	for _, p := range []*string{&b.SvcCtl, &b.TestSvc} {
		if *p, err = filepath.Abs(*p); err != nil {
			return b, fmt.Errorf("binary path: %w", err)
		}
	}
	return b, nil
}

func goBuild(ctx context.Context, dir, name, pkg string, env ...string) (string, error) {
	root, err := moduleRoot(ctx)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	if runtime.GOOS == "windows" {
		out += ".exe"
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w: %s", pkg, err, b)
	}
	return out, nil
}

// ModuleRoot is the directory of the svcctl module the benchmark runs in.
func ModuleRoot(ctx context.Context) (string, error) { return moduleRoot(ctx) }

func moduleRoot(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	b, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w (run the benchmark from inside the svcctl module, or pass -svc-ctl and -testsvc)", err)
	}
	mod := strings.TrimSpace(string(b))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the svcctl module: run from the repository, or pass -svc-ctl and -testsvc")
	}
	return filepath.Dir(mod), nil
}
