//go:build unix

package svcenv

import (
	"os"
	"os/user"
	"slices"
	"strconv"
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
	if b["PATH"] != defaultPath || b["HOME"] != u.HomeDir || b["USER"] != u.Username || b["LOGNAME"] != u.Username {
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
