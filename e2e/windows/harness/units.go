package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// testPkg is a package with tests and where its Windows test binary is.
type testPkg struct {
	ImportPath string
	Dir        string
	Bin        string
}

// helpers are the programs tests would build with `go build` at run time;
// under Wine there is no Go toolchain, so they are built here once and the
// tests find them through $SVCCTL_TEST_PREBUILT (internal/testutil.GoBuild).
var helpers = []string{"./cmd/svc-ctl", "./cmd/svc-ctl/testdata/crashagent", "./internal/testsvc/cmd/testsvc", "./runtrace/internal/rtload"}

// goCmd is the go command for GOOS=windows, run in the module root.
func goCmd(ctx context.Context, root string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	return cmd
}

// listTestPkgs lists every package that has tests when built for Windows.
func listTestPkgs(ctx context.Context, root string, only []string) ([]testPkg, error) {
	args := []string{"list", "-json=ImportPath,Dir,TestGoFiles,XTestGoFiles", "./..."}
	out, err := goCmd(ctx, root, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var pkgs []testPkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath, Dir           string
			TestGoFiles, XTestGoFiles []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		if len(p.TestGoFiles)+len(p.XTestGoFiles) == 0 || !selected(p.ImportPath, only) {
			continue
		}
		pkgs = append(pkgs, testPkg{ImportPath: p.ImportPath, Dir: p.Dir})
	}
	return pkgs, nil
}

func selected(pkg string, only []string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if pkg == o || strings.HasSuffix(pkg, "/"+o) {
			return true
		}
	}
	return false
}

// buildTests compiles every package's Windows test binary into dir. Packages
// whose last path element is unique are built by one `go test -c` (the go
// command builds them in parallel); the others one by one.
func buildTests(ctx context.Context, root, dir string, pkgs []testPkg) error {
	count := map[string]int{}
	for _, p := range pkgs {
		count[filepath.Base(p.ImportPath)]++
	}
	var batch []string
	for i, p := range pkgs {
		base := filepath.Base(p.ImportPath)
		if count[base] == 1 {
			batch = append(batch, p.ImportPath)
			pkgs[i].Bin = filepath.Join(dir, base+".test.exe")
			continue
		}
		pkgs[i].Bin = filepath.Join(dir, strings.ReplaceAll(p.ImportPath, "/", "_")+".test.exe")
		if out, err := goCmd(ctx, root, "test", "-c", "-o", pkgs[i].Bin, p.ImportPath).CombinedOutput(); err != nil {
			return fmt.Errorf("build the tests of %s: %w\n%s", p.ImportPath, err, out)
		}
	}
	if len(batch) > 0 {
		args := append([]string{"test", "-c", "-o", dir + string(filepath.Separator)}, batch...)
		if out, err := goCmd(ctx, root, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("build the test binaries: %w\n%s", err, out)
		}
	}
	for _, p := range pkgs {
		if _, err := os.Stat(p.Bin); err != nil {
			return fmt.Errorf("test binary of %s: %w", p.ImportPath, err)
		}
	}
	return nil
}

// buildHelpers builds the helper programs into dir.
func buildHelpers(ctx context.Context, root, dir string) error {
	for _, h := range helpers {
		out := filepath.Join(dir, filepath.Base(h)+".exe")
		if b, err := goCmd(ctx, root, "build", "-o", out, h).CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %w\n%s", h, err, b)
		}
	}
	return nil
}

// unitRun is one package's row of the table.
type unitRun struct {
	Pkg     testPkg
	Result  pkgResult
	Elapsed time.Duration
	Log     string // the test2json output, kept for a person
}

// runTests runs one test binary under Wine from its package directory, as
// `go test` would, with -test.v=test2json; test2json then turns the output
// into events, so every test's verdict and output are known. The output goes
// to a file, not a pipe: under Wine a process a test spawns and leaves
// running can keep a pipe open. The binary gets timeout; Go's own
// -test.timeout fires a little earlier so a hung test names itself.
func runTests(w *wine, p testPkg, timeout time.Duration, logDir string) unitRun {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	base := filepath.Join(logDir, strings.ReplaceAll(p.ImportPath, "/", "_"))
	r := unitRun{Pkg: p, Log: base + ".json"}
	raw, err := os.Create(base + ".out")
	if err != nil {
		r.Result = pkgResult{Verdict: Fail, Why: []string{err.Error()}}
		return r
	}
	defer raw.Close()
	inner := max(timeout-15*time.Second, timeout*3/4)
	cmd := w.command(ctx, p.Dir, p.Bin, "-test.v=test2json", "-test.timeout="+inner.String(), "-test.count=1")
	cmd.Stdout, cmd.Stderr = raw, raw
	err = cmd.Run()
	r.Elapsed = time.Since(start)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		code = -1
		fmt.Fprintf(raw, "\nharness: run: %v\n", err)
	}
	timedOut := ctx.Err() != nil
	events, noise, err := toJSON(p.ImportPath, base+".out")
	if err != nil {
		r.Result = pkgResult{Verdict: Fail, Why: []string{err.Error()}}
		return r
	}
	r.Result = classify(bytes.NewReader(events), code, timedOut, parseSources(p.Dir))
	if noise > 0 {
		r.Result.Gaps["wine-client-noise"] += noise
	}
	if err := os.WriteFile(r.Log, events, 0o600); err != nil {
		r.Result.Why = append(r.Result.Why, "keep the log: "+err.Error())
		r.Result.Verdict = Fail
	}
	return r
}

// toJSON converts a test binary's -test.v=test2json output to events.
// Wine's noise, removed before test2json reads the output and counted.
func toJSON(pkg, rawPath string) ([]byte, int, error) {
	raw, err := os.ReadFile(rawPath)
	if err != nil {
		return nil, 0, err
	}
	clean, noise := stripWineNoise(raw)
	cmd := exec.Command("go", "tool", "test2json", "-p", pkg)
	cmd.Stdin = bytes.NewReader(clean)
	out, err := cmd.Output()
	if err != nil {
		return nil, 0, fmt.Errorf("test2json: %w", err)
	}
	return out, noise, nil
}

// stripWineNoise removes what the wine-client-noise gap names from a test
// binary's output: a Wine process that ends during a call to the wineserver
// (a child a test terminated) writes "wine client error:PID: ..." into the
// output it inherited, in the middle of the test's own lines.
func stripWineNoise(raw []byte) ([]byte, int) {
	g := gapNamed("wine-client-noise")
	n := len(g.Line.FindAllIndex(raw, -1))
	return g.Line.ReplaceAll(raw, nil), n
}
