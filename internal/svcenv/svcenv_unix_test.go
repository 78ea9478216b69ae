//go:build unix

package svcenv

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"svcctl/internal/runas"
)

func TestBaseUnix(t *testing.T) {
	t.Setenv("HOME", "/nowhere")
	b := Base(nil)
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil {
		t.Skip("no user entry for this uid")
	}
	if b["PATH"] != basePath(os.Getuid()) || b["HOME"] != u.HomeDir || b["USER"] != u.Username || b["LOGNAME"] != u.Username {
		t.Errorf("Base(nil) = %v", b)
	}
	other := Base(&runas.Identity{Username: "svc", UID: 4242, Home: "/srv/svc"})
	if other["HOME"] != "/srv/svc" || other["USER"] != "svc" || other["LOGNAME"] != "svc" {
		t.Errorf("Base(svc) = %v", other)
	}
	if env := Build(&runas.Identity{Username: "svc", UID: 4242, Home: "/srv/svc"}, nil); !slices.Contains(env, "HOME=/srv/svc") {
		t.Errorf("Build(svc) = %q", env)
	}
}

func TestLookPathUsesTheServicePath(t *testing.T) {
	dir := t.TempDir()
	shim := dir + "/python3"
	if err := os.WriteFile(shim, []byte("#!/bin/false\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin") // the caller's shell
	got, err := LookPath("env", []string{"PATH=/usr/bin:/bin"})
	if err != nil || (got != "/usr/bin/env" && got != "/bin/env") {
		t.Fatalf("LookPath(env) = %q, %v", got, err)
	}
	if p, err := LookPath("python3", []string{"PATH=/nonexistent"}); err == nil {
		t.Fatalf("the caller's PATH was searched: %s", p)
	}
	if p, _ := LookPath("./x", nil); p != "./x" {
		t.Fatalf("a path with a slash changed: %s", p)
	}
}

// The one rule's other halves: search_path before the PATH, the working
// directory the user's home (root: /; no home: /), never the caller's.
func TestProcessSearchPathAndWorkDir(t *testing.T) {
	home := t.TempDir()
	id := &runas.Identity{Username: "svc", UID: 4242, Home: home}
	p := Process{RunAs: id, SearchPath: []string{"/opt/a/bin", "/opt/b/bin"}}
	if got := PathOf(p.Environ()); got != "/opt/a/bin:/opt/b/bin:"+BasePath(id) {
		t.Errorf("PATH = %s", got)
	}
	if got := (Process{RunAs: id, Env: map[string]string{"PATH": "/x"}, SearchPath: []string{"/s"}}).Environ(); PathOf(got) != "/s:/x" {
		t.Errorf("search_path with env's PATH: %s", PathOf(got))
	}
	if p.WorkDir() != home {
		t.Errorf("WorkDir = %s, want the user's home %s", p.WorkDir(), home)
	}
	if d := (Process{RunAs: &runas.Identity{Username: "gone", UID: 4243, Home: "/nonexistent"}}).WorkDir(); d != "/" {
		t.Errorf("WorkDir without a home = %s, want /", d)
	}
	if d := (Process{RunAs: &runas.Identity{Username: "root", UID: 0, Home: "/root"}}).WorkDir(); d != "/" {
		t.Errorf("WorkDir of root = %s, want /", d)
	}
	if d := (Process{RunAs: id, Dir: "/srv"}).WorkDir(); d != "/srv" {
		t.Errorf("dir set: %s", d)
	}
}

// A bare name the service's PATH does not hold: the error names the PATH
// searched and where the caller's PATH finds it, with what to write.
func TestLookPathSaysWhereTheCallerFindsIt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/ollama-test", []byte("#!/bin/false\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+":/usr/bin:/bin")
	_, err := Process{}.LookPath("ollama-test")
	var nf *NotFoundError
	if !errors.As(err, &nf) || !errors.Is(err, exec.ErrNotFound) {
		t.Fatalf("LookPath = %v, want a *NotFoundError", err)
	}
	want := `"ollama-test" is not in the PATH a service gets (` + BasePath(nil) + `); this svc-ctl's own PATH finds it at ` +
		dir + `/ollama-test: write that absolute path in the command, or add search_path = ["` + dir + `"]`
	if err.Error() != want {
		t.Errorf("error:\n%s\nwant:\n%s", err, want)
	}
	if got, err := (Process{SearchPath: []string{dir}}).LookPath("ollama-test"); err != nil || got != dir+"/ollama-test" {
		t.Errorf("with search_path: %s, %v", got, err)
	}
	if _, err := (Process{}).LookPath("svcctl-nowhere-at-all"); err == nil || !strings.Contains(err.Error(), "nor in this svc-ctl's own PATH") {
		t.Errorf("a program nowhere: %v", err)
	}
}

// config check's warning: the same bare name that the caller's PATH finds
// elsewhere (a pyenv shim before /usr/bin) names both files.
func TestMismatchNamesBothFiles(t *testing.T) {
	real, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/env", []byte("#!/bin/false\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Dir(real))
	if m := (Process{}).Mismatch("env"); m != "" {
		t.Errorf("the same file: %q", m)
	}
	t.Setenv("PATH", dir+":"+filepath.Dir(real))
	m := (Process{}).Mismatch("env")
	if !strings.Contains(m, dir+"/env in this svc-ctl's own PATH") || !strings.Contains(m, "in the PATH a service gets") {
		t.Errorf("Mismatch = %q", m)
	}
	if m := (Process{}).Mismatch("/usr/bin/env"); m != "" {
		t.Errorf("an absolute path: %q", m)
	}
}
