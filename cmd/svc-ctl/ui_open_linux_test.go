package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// `svc-ctl ui --open` put the page's token in xdg-open's argv, which every
// local user can read (/proc/PID/cmdline), and with it another user
// paused a root service through the page. Now the opener gets a redirect
// file of the person's (0600, in ~/svc-ctl-ui), no process's argv holds
// the token while the page serves, and the file is gone once the page
// used the token. Failed before: xdg-open's argv was the URL with its
// token.
func TestUIOpenKeepsTheTokenOutOfArgv(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m"))
	home, bin := t.TempDir(), t.TempDir()
	record := filepath.Join(t.TempDir(), "argv")
	// The stand-in opener records its argv and stays a while, as xdg-open
	// does while a browser starts.
	opener := fmt.Sprintf("#!/bin/sh\nfor a in \"$0\" \"$@\"; do printf '%%s\\n' \"$a\"; done > %q.tmp\nmv %q.tmp %q\nsleep 5\n", record, record, record)
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte(opener), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + home}
	u := startUIWith(t, env, "--config", cfg, "--open")
	var argv []string
	testutil.WaitFor(t, 30*time.Second, "the opener to run", func() bool {
		b, err := os.ReadFile(record)
		argv = strings.Split(strings.TrimSpace(string(b)), "\n")
		return err == nil
	})
	// While the page serves and the opener runs: no process's argv holds it.
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), u.token) {
			t.Errorf("%s holds the token: %q", p, b)
		}
	}
	if len(argv) != 2 || !strings.HasPrefix(argv[1], filepath.Join(home, "svc-ctl-ui", "open-")) || !strings.HasSuffix(argv[1], ".html") {
		t.Fatalf("the opener got %q: want one redirect file in %s", argv, filepath.Join(home, "svc-ctl-ui"))
	}
	page := argv[1]
	fi, err := os.Stat(page)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the redirect file: %v %v, want 0600", fi, err)
	}
	b, _ := os.ReadFile(page)
	if !strings.Contains(string(b), u.base+"/#token="+u.token) {
		t.Fatalf("the redirect file does not lead to the page with its token in the fragment:\n%s", b)
	}
	// The page opens and uses the token: the file goes.
	if code, _ := u.request(t, "GET", "/api/state", ""); code != 200 {
		t.Fatalf("state = %d", code)
	}
	testutil.WaitFor(t, 10*time.Second, "the redirect file to be deleted once used", func() bool {
		_, err := os.Stat(page)
		return os.IsNotExist(err)
	})
}
