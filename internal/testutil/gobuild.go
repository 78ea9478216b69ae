package testutil

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// EnvPrebuilt names a directory of helper programs built ahead of time. The
// Windows harness (e2e/windows) sets it: its test binaries run under Wine,
// where there is no Go toolchain to build a helper with. Each program is
// there under its command's name (testsvc.exe, rtload.exe, svc-ctl.exe).
const EnvPrebuilt = "SVCCTL_TEST_PREBUILT"

// ErrNoGoTool is returned when a helper must be built and no go command can
// be run (a test binary copied to another host, or run under Wine).
var ErrNoGoTool = errors.New("no go command to build with")

// HaveGoTool reports whether the go command can be run here. Tests about the
// source tree itself (import layering) skip without it, naming why.
func HaveGoTool() bool {
	_, err := exec.LookPath("go")
	return err == nil
}

// GoBuild builds the main package pkg (a path relative to the module root,
// like "./internal/testsvc/cmd/testsvc") into dir and returns the program's
// path; with $SVCCTL_TEST_PREBUILT set it returns the prebuilt program from
// there instead, and fails if it is missing. The program is named after the
// last element of pkg, with .exe on Windows.
func GoBuild(dir, pkg string) (string, error) {
	name := filepath.Base(pkg)
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if pre := os.Getenv(EnvPrebuilt); pre != "" {
		p := filepath.Join(pre, name)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("prebuilt %s from $%s: %w", name, EnvPrebuilt, err)
		}
		return p, nil
	}
	if !HaveGoTool() {
		return "", fmt.Errorf("build %s: %w: set $%s to a directory of prebuilt helpers", pkg, ErrNoGoTool, EnvPrebuilt)
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %w: %s", pkg, err, b)
	}
	return out, nil
}

// ModuleRoot is the directory of svc-ctl's go.mod, asked of the go command.
func ModuleRoot() (string, error) {
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
