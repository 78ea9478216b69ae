//go:build unix

package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenFileRefusesSymlink: a link planted where svc-ctl writes is an
// error naming the path; the file it points at is not touched.
func TestOpenFileRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("root only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "runtime.log")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	for _, open := range []func(string) (*os.File, error){Open, OpenAppend,
		func(p string) (*os.File, error) { return OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0) }} {
		f, err := open(link)
		if err == nil {
			f.Close()
			t.Fatal("opened a symlink")
		}
		if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "rm "+link) {
			t.Errorf("error %v: want ErrSymlink naming %s and the fix", err, link)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "root only\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
}

// TestOpenFileRefusesFIFO: a FIFO in place of a log neither blocks the
// opener nor is used.
func TestOpenFileRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := Open(fifo)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("Open(fifo) = %v, want ErrNotRegular", err)
		}
	case <-time.After(10 * time.Second): // a bound on a hang, not a timing assertion
		t.Fatal("Open(fifo) blocked")
	}
}

func TestOpenAppendCreatesPrivate(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.log")
	for range 2 {
		f, err := OpenAppend(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("line\n")
		f.Close()
	}
	b, _ := os.ReadFile(p)
	if string(b) != "line\nline\n" {
		t.Fatalf("content %q", b)
	}
	assertMode(t, p, 0o600)
}

func TestEnsurePrivateDirRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "state")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := EnsurePrivateDir(link); !errors.Is(err, ErrSymlink) {
		t.Fatalf("EnsurePrivateDir(link) = %v, want ErrSymlink", err)
	}
	if err := EnsurePrivateDir(filepath.Join(dir, "new", "sub")); err != nil {
		t.Fatal(err)
	}
	assertMode(t, filepath.Join(dir, "new", "sub"), 0o700|os.ModeDir)
}

func TestCheckPrivate(t *testing.T) {
	dir := t.TempDir()
	me := os.Geteuid()
	f := filepath.Join(dir, "f")
	if err := os.WriteFile(f, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckPrivate(f, me); err != nil {
		t.Fatalf("a private file: %v", err)
	}
	if err := os.Chmod(f, 0o664); err != nil {
		t.Fatal(err)
	}
	err := CheckPrivate(f, me)
	want := f + " is writable by its group or by everyone (mode 0664): it can be changed by another user; run: chmod go-w " + f
	if !errors.Is(err, ErrUntrusted) || err.Error() != want {
		t.Errorf("group-writable:\n got %v\nwant %s", err, want)
	}
	err = CheckPrivate(f, me+1)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "run: chown ") || !strings.Contains(err.Error(), "who runs svc-ctl") {
		t.Errorf("owned by another: %v", err)
	}
	link := filepath.Join(dir, "l")
	os.Symlink(f, link)
	if err := CheckPrivate(link, me); !errors.Is(err, ErrSymlink) {
		t.Errorf("symlink: %v", err)
	}
}

func TestCheckTree(t *testing.T) {
	root := filepath.Join(t.TempDir(), "state")
	me := os.Geteuid()
	if err := os.MkdirAll(filepath.Join(root, "services", "web"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "services", "web", "pid"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckTree(root, me); err != nil {
		t.Fatalf("a private tree: %v", err)
	}
	os.Chmod(filepath.Join(root, "services"), 0o777)
	os.Symlink("/etc/passwd", filepath.Join(root, "services", "web", "lock"))
	err := CheckTree(root, me)
	if !errors.Is(err, ErrUntrusted) || !errors.Is(err, ErrSymlink) ||
		!strings.Contains(err.Error(), "chmod go-w "+filepath.Join(root, "services")) ||
		!strings.Contains(err.Error(), filepath.Join(root, "services", "web", "lock")) {
		t.Fatalf("CheckTree = %v", err)
	}
	for i := range 15 {
		f := filepath.Join(root, "f"+strings.Repeat("x", i))
		os.WriteFile(f, nil, 0o600)
		os.Chmod(f, 0o666)
	}
	if err := CheckTree(root, me); !strings.Contains(err.Error(), "more problems under "+root) {
		t.Fatalf("CheckTree with many problems = %v", err)
	}
}

func TestCheckOwnedBy(t *testing.T) {
	d := t.TempDir()
	me := os.Geteuid()
	if err := CheckOwnedBy(d, me+1, me); err != nil {
		t.Fatalf("owned by the second uid: %v", err)
	}
	if err := CheckOwnedBy(d, me+1); !errors.Is(err, ErrUntrusted) {
		t.Fatalf("owned by none: %v", err)
	}
}

func TestCheckDirChain(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ownership by another user needs root to set up")
	}
	base := t.TempDir()
	logs := filepath.Join(base, "home", "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(base, "home"), 0o755)
	if err := CheckDirChain(logs); err != nil {
		t.Fatalf("a root-owned chain: %v", err)
	}
	os.Chown(filepath.Join(base, "home"), 4242, 4242)
	err := CheckDirChain(logs)
	if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), filepath.Join(base, "home")+" is owned by uid 4242") {
		t.Fatalf("a parent owned by another user: %v", err)
	}
	if err := CheckDirChain(logs, 4242); err != nil {
		t.Fatalf("owned by the service's user: %v", err)
	}
	os.Chmod(logs, 0o777)
	if err := CheckDirChain(logs, 4242); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "chmod go-w "+logs) {
		t.Fatalf("a world-writable log dir: %v", err)
	}
	os.Chmod(logs, 0o777|os.ModeSticky)
	if err := CheckDirChain(logs, 4242); err != nil {
		t.Fatalf("a sticky dir: %v", err)
	}
}
