//go:build linux

package privileged

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// `svc-ctl ui --open` put the page's token in xdg-open's argv (readable by
// every local user in /proc/PID/cmdline; the browser kept it in its argv
// too), and with it another local user paused a root service through the
// page (curl sets any Origin). Under sudo now: the opener (a stand-in that
// records its argv and its uid) runs as the user sudo names and gets a
// redirect file of theirs, 0600; no process's argv holds the token while
// the page serves; the file is deleted once the page used the token.
func TestAttackUITokenNotInArgv(t *testing.T) {
	requirePrivileged(t)
	cfg, _ := rootConfig(t, webService("web", freeAddr(t), ""))
	bin := rootDir(t, "bin")
	record := filepath.Join(attacker.home, "opener-record")
	opener := fmt.Sprintf("#!/bin/sh\n{ id -u; for a in \"$0\" \"$@\"; do printf '%%s\\n' \"$a\"; done; } > %q.tmp\nmv %q.tmp %q\nsleep 5\n", record, record, record)
	writeAs(t, filepath.Join(bin, "xdg-open"), opener, 0o755, 0, 0)
	t.Cleanup(func() { os.Remove(record) })

	cmd := exec.Command(svcctlBin, "--config", cfg, "ui", "--open")
	cmd.Env = []string{"PATH=" + bin + ":/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root",
		"SUDO_USER=" + attacker.name, "SUDO_UID=" + strconv.Itoa(attacker.uid), "SUDO_GID=" + strconv.Itoa(attacker.gid)}
	cmd.Dir = "/"
	out, _ := cmd.StdoutPipe()
	var errb lockedBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGINT); cmd.Wait() })
	first, _ := bufio.NewReader(out).ReadString('\n')
	go io.Copy(io.Discard, out)
	m := regexp.MustCompile(`^(http://127\.0\.0\.1:[0-9]+)/#token=([A-Za-z0-9_-]{43})\n$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("ui printed %q, want the URL with the token in its fragment; stderr: %s", first, errb.String())
	}
	base, token := m[1], m[2]
	var lines []string
	testutil.WaitForSaying(t, 30*time.Second, "the opener to run", func() bool {
		b, err := os.ReadFile(record)
		lines = strings.Split(strings.TrimSpace(string(b)), "\n")
		return err == nil
	}, errb.String)
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), token) {
			t.Errorf("%s holds the page's token: %q", p, b)
		}
	}
	if len(lines) != 3 || lines[0] != strconv.Itoa(attacker.uid) {
		t.Fatalf("the opener recorded %q: want it run as uid %d with one argument", lines, attacker.uid)
	}
	page := lines[2]
	if !strings.HasPrefix(page, filepath.Join(attacker.home, "svc-ctl-ui", "open-")) {
		t.Fatalf("the opener got %s: want a redirect file in %s", page, filepath.Join(attacker.home, "svc-ctl-ui"))
	}
	fi, err := os.Stat(page)
	if err != nil || fi.Mode().Perm() != 0o600 || int(fi.Sys().(*syscall.Stat_t).Uid) != attacker.uid {
		t.Fatalf("the redirect file: %v %v: want 0600 and the sudo user's", fi, err)
	}
	req, _ := http.NewRequest("GET", base+"/api/state", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := testutilClient().Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the page with its token: %v %v", resp, err)
	}
	resp.Body.Close()
	testutil.WaitFor(t, 10*time.Second, "the redirect file to go once the page used the token", func() bool {
		_, err := os.Stat(page)
		return os.IsNotExist(err)
	})
}

// lockedBuffer is a process's stderr, read while it is written.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
