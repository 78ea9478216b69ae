//go:build linux

package privileged

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"svcctl/internal/testutil"
)

// The attacker's own programs are this test binary run again as the
// throwaway user (a copy others may execute), with SVCCTL_PRIVILEGED_HELPER naming
// what to do: the attack runs with the attacker's rights, not root's.
const envHelper = "SVCCTL_PRIVILEGED_HELPER"

// helperMain runs the helper SVCCTL_PRIVILEGED_HELPER names and reports whether
// it did (then TestMain returns without running tests).
func helperMain() bool {
	switch os.Getenv(envHelper) {
	case "":
		return false
	case "exchange":
		os.Exit(exchangeLoop(os.Args[1], os.Args[2], os.Args[3]))
	}
	fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(envHelper))
	os.Exit(2)
	return true
}

// exchangeLoop swaps the names a and b (a directory and a link to another
// directory) with renameat2(RENAME_EXCHANGE) as fast as it can until the
// file stop exists, then leaves a naming the directory again.
func exchangeLoop(a, b, stop string) int {
	n, swapped := 0, false
	for {
		if _, err := os.Lstat(stop); err == nil {
			break
		}
		if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
			fmt.Fprintln(os.Stderr, "exchange:", err)
			return 1
		}
		swapped = !swapped
		n++
	}
	if swapped {
		unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	}
	fmt.Println(n)
	return 0
}

// copySelf copies this test binary where the attacker may run it.
func copySelf() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(self)
	if err != nil {
		return "", err
	}
	dst := filepath.Join(work, "privileged.test")
	return dst, os.WriteFile(dst, b, 0o755)
}

// asAttackerHelper starts the helper named what as the attacker.
func asAttackerHelper(t *testing.T, what string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(selfBin, args...)
	cmd.Env = []string{envHelper + "=" + what, "PATH=/usr/bin:/bin"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(attacker.uid), Gid: uint32(attacker.gid)}}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Dir = "/"
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &out
}

// agentProc is a root `svc-ctl agent` in the background.
type agentProc struct {
	cmd *exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (a *agentProc) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.out.Write(p)
}

func (a *agentProc) log() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.out.String()
}

// startAgent runs the agent for cfg as root; walk runs it with openat2
// filtered (noopenat2), so that its pinned directories take the walk. It is
// stopped (SIGTERM) when the test ends; its services are stopped by the
// caller's cleanup.
func startAgent(t *testing.T, cfg string, walk bool) *agentProc {
	t.Helper()
	argv := []string{svcctlBin, "--config", cfg, "agent"}
	if walk {
		argv = append([]string{noopenat2Bin}, argv...)
	}
	a := &agentProc{cmd: exec.Command(argv[0], argv[1:]...)}
	a.cmd.Env = []string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	a.cmd.Dir = "/"
	a.cmd.Stdout, a.cmd.Stderr = a, a
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		a.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { a.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			a.cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("agent output:\n%s", a.log())
		}
	})
	return a
}

// waitHealthy waits for the service at addr to answer /health.
func waitHealthy(t *testing.T, addr string, d time.Duration) {
	t.Helper()
	testutil.WaitFor(t, d, "the service at "+addr+" to answer", func() bool { return testutil.Healthy(addr) })
}

// dirState is what a directory holds: every entry's name, type, owner,
// mode, size, inode and content digest, for "nothing here changed".
func dirState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		fmt.Fprintf(&b, "%s %v uid=%d ino=%d size=%d mtime=%d", e.Name(), fi.Mode(), st.Uid, st.Ino, fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			c, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", digest(c))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func digest(b []byte) string {
	if len(b) > 40 {
		return string(b[:20]) + "..." + strconv.Itoa(len(b))
	}
	return string(b)
}

// flood asks testsvc to write mb MB of lines to its log.
func flood(addr string, mb int) {
	c := testutilClient()
	if resp, err := c.Get(fmt.Sprintf("http://%s/control/flood?mb=%d", addr, mb)); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
