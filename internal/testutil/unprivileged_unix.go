//go:build unix

package testutil

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// AsUnprivileged runs the calling test as an unprivileged user when the
// suite runs as root (as CI does), and reports whether it did: the caller
// returns at once then, its verdict being the child's. A case root cannot
// make (a file root cannot read) is thus tested wherever the suite runs,
// never skipped because it runs as root.
//
// As root it copies this test binary to a directory the user can reach,
// gives the user a working and a temporary directory of its own, and runs
// the binary again with the user's credential and -test.run naming only
// t's test; that test, run by the user, must pass and not skip. The user is
// "nobody" (SVCCTL_TEST_UNPRIVILEGED_USER names another). Not root: it
// returns false and the test goes on as itself.
func AsUnprivileged(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	name := os.Getenv("SVCCTL_TEST_UNPRIVILEGED_USER")
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("as root, %s runs as an unprivileged user, and there is no user %q: %v "+
			"(set SVCCTL_TEST_UNPRIVILEGED_USER to one that exists)", t.Name(), name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if uid == 0 {
		t.Fatalf("user %q is root: name an unprivileged one in SVCCTL_TEST_UNPRIVILEGED_USER", name)
	}

	// Everything the child touches: the binary (readable, runnable), and a
	// home and temporary directory it owns. Not t.TempDir: its parents are
	// root's 0700.
	top, err := os.MkdirTemp("", "svcctl-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	if err := os.Chmod(top, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(top, filepath.Base(os.Args[0]))
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatalf("copy the test binary where %s can run it: %v", name, err)
	}
	home := filepath.Join(top, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, uid, gid); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	run := "^" + strings.ReplaceAll(t.Name(), "/", "$/^") + "$"
	cmd := exec.CommandContext(ctx, bin, "-test.run", run, "-test.v", "-test.count=1")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "TMPDIR=" + home, "PATH=" + os.Getenv("PATH"), "USER=" + name, "LOGNAME=" + name}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	text := string(out)
	switch {
	case strings.Contains(text, "--- SKIP: "+t.Name()):
		t.Fatalf("%s skipped as %s (uid %d): it must run there\n%s", t.Name(), name, uid, text)
	case err != nil || !strings.Contains(text, "--- PASS: "+t.Name()):
		t.Fatalf("%s as %s (uid %d): %v\n%s", t.Name(), name, uid, err, text)
	}
	t.Logf("ran as %s (uid %d): --- PASS", name, uid)
	return true
}

func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("write %s: %w", to, err)
	}
	return os.Chmod(to, 0o755) // the umask may have taken bits
}
