//go:build unix

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testkit"
)

// bothWays runs a test with the one-call resolution (openat2,
// O_NOFOLLOW_ANY) and with the element-by-element walk that replaces it
// where the call is missing or filtered.
func bothWays(t *testing.T, fn func(t *testing.T)) {
	for _, walk := range []bool{false, true} {
		name := "one-call"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) {
			testkit.Replace(t, &walkOnly, walk)
			fn(t)
		})
	}
}

// realTemp is t.TempDir without links on its path (macOS's /var/folders
// is under /var -> /private/var).
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestOpenDirRefusesALinkOnAnyElement(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		root := realTemp(t)
		real := filepath.Join(root, "real", "logs")
		if err := os.MkdirAll(real, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "mid")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(real, filepath.Join(root, "last")); err != nil {
			t.Fatal(err)
		}
		for path, link := range map[string]string{
			filepath.Join(root, "mid", "logs"): filepath.Join(root, "mid"),
			filepath.Join(root, "last"):        filepath.Join(root, "last"),
		} {
			d, err := OpenDir(path)
			if err == nil {
				d.Close()
				t.Fatalf("OpenDir(%s) followed a link", path)
			}
			if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), link+" ") {
				t.Errorf("OpenDir(%s) = %v: want ErrSymlink naming %s", path, err, link)
			}
		}
		d, err := OpenDir(real)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if d.Path() != real {
			t.Errorf("Path = %s", d.Path())
		}
		if _, err := OpenDir(filepath.Join(root, "missing")); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("OpenDir(missing) = %v, want fs.ErrNotExist", err)
		}
	})
}

func TestEnsurePinnedDirCreatesPrivateDirs(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		root := realTemp(t)
		p := filepath.Join(root, "a", "b", "c")
		d, err := EnsurePinnedDir(p)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		for _, q := range []string{filepath.Join(root, "a"), filepath.Join(root, "a", "b"), p} {
			assertMode(t, q, 0o700|os.ModeDir)
		}
		// A link planted on the way is refused, not created through.
		if err := os.Symlink(root, filepath.Join(root, "trap")); err != nil {
			t.Fatal(err)
		}
		if _, err := EnsurePinnedDir(filepath.Join(root, "trap", "x")); !errors.Is(err, ErrSymlink) {
			t.Fatalf("EnsurePinnedDir through a link = %v, want ErrSymlink", err)
		}
		if _, err := os.Lstat(filepath.Join(root, "x")); err == nil {
			t.Fatal("a directory was created where the link pointed")
		}
	})
}

// TestPinnedDirIgnoresASwap is the heart of the pin: once pinned, the
// directory's path can be replaced by a link to another directory, and
// every operation still lands in the directory that was pinned.
func TestPinnedDirIgnoresASwap(t *testing.T) {
	bothWays(t, func(t *testing.T) {
		root := realTemp(t)
		logs := filepath.Join(root, "logs")
		victim := filepath.Join(root, "victim")
		for _, d := range []string{logs, victim} {
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		secret := filepath.Join(victim, "runtime.log")
		if err := os.WriteFile(secret, []byte("secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(logs, "runtime.log"), []byte("ours\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		d, err := OpenDir(logs)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		if err := os.Rename(logs, filepath.Join(root, "moved")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(victim, logs); err != nil {
			t.Fatal(err)
		}
		f, err := d.OpenFile("runtime.log", os.O_RDWR, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(0); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if err := d.Rename("runtime.log", "runtime.prev.log"); err != nil {
			t.Fatal(err)
		}
		tmp, name, err := d.CreateTemp(".x-", 0o640)
		if err != nil {
			t.Fatal(err)
		}
		tmp.Close()
		if b, _ := os.ReadFile(secret); string(b) != "secret\n" {
			t.Fatalf("the file behind the link changed: %q", b)
		}
		if ents, _ := os.ReadDir(victim); len(ents) != 1 {
			t.Fatalf("the directory behind the link gained entries: %v", ents)
		}
		names, err := d.Names()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(names, ",") != "runtime.prev.log,"+name && strings.Join(names, ",") != name+",runtime.prev.log" {
			t.Fatalf("the pinned directory holds %v", names)
		}
		fi, err := os.Stat(filepath.Join(root, "moved", name))
		if err != nil || fi.Mode().Perm() != 0o640 {
			t.Fatalf("CreateTemp: %v %v", fi, err)
		}
		// Opening again by path sees another directory: Same says so.
		again, err := OpenDir(filepath.Join(root, "moved"))
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		if !d.Same(again) {
			t.Error("Same: the moved directory is the pinned one")
		}
		if _, err := OpenDir(logs); !errors.Is(err, ErrSymlink) {
			t.Errorf("OpenDir on the link = %v", err)
		}
	})
}

func TestPinnedOpenRefusesWhatIsNotAPlainFile(t *testing.T) {
	root := realTemp(t)
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	other := filepath.Join(realTemp(t), "other")
	if err := os.WriteFile(other, []byte("root only\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, filepath.Join(root, "hard")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		flag int
		want error
	}{
		{"link", os.O_RDONLY, ErrSymlink},
		{"link", os.O_WRONLY | os.O_APPEND | os.O_CREATE, ErrSymlink},
		{"hard", os.O_RDWR, ErrLinked},
		{"fifo", os.O_RDONLY, ErrNotRegular},
		{"fifo", os.O_WRONLY | os.O_APPEND | os.O_CREATE, ErrNotRegular},
	}
	for _, c := range cases {
		done := make(chan error, 1)
		go func() {
			f, err := d.OpenFile(c.name, c.flag, 0o600, nil)
			if err == nil {
				f.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), filepath.Join(root, c.name)) {
				t.Errorf("OpenFile(%s, %#x) = %v, want %v naming the path", c.name, c.flag, err, c.want)
			}
		case <-time.After(10 * time.Second): // a bound on a hang, not a timing assertion
			t.Fatalf("OpenFile(%s) blocked", c.name)
		}
	}
	if b, _ := os.ReadFile(other); string(b) != "root only\n" {
		t.Fatalf("the linked file changed: %q", b)
	}
	if _, err := d.OpenFile("x", os.O_RDWR|os.O_TRUNC, 0, nil); err == nil {
		t.Error("O_TRUNC accepted before the check")
	}
	if _, err := d.OpenFile("../x", os.O_RDONLY, 0, nil); err == nil {
		t.Error("a name with a separator accepted")
	}
}

func TestPinnedOpenChecksTheOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	root := realTemp(t)
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	p := filepath.Join(root, "planted")
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open("planted", Owners{0}); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), "rm "+p) {
		t.Fatalf("a file of uid 65534 = %v, want ErrUntrusted with the fix", err)
	}
	f, err := d.Open("planted", Owners{0, 65534})
	if err != nil {
		t.Fatalf("the service user's own file: %v", err)
	}
	f.Close()
	if got := TrustedOwners(42); len(got) != 2 || got[0] != 0 || got[1] != 42 {
		t.Errorf("TrustedOwners(42) as root = %v", got)
	}
}

func TestPinnedLstatAndGone(t *testing.T) {
	root := realTemp(t)
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(sub)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.WriteFile(filepath.Join(sub, "f"), []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := d.Lstat("f")
	if err != nil || fi.Size() != 5 || !fi.Mode().IsRegular() || fi.Name() != "f" {
		t.Fatalf("Lstat = %v, %v", fi, err)
	}
	byPath, _ := os.Lstat(filepath.Join(sub, "f"))
	if !SameFile(fi, byPath) || !SameFile(byPath, fi) {
		t.Error("SameFile: a Dir's Lstat and os.Lstat of one file differ")
	}
	if owner, ok := Owner(fi); !ok || owner != os.Geteuid() {
		t.Errorf("Owner = %d, %v", owner, ok)
	}
	if _, err := d.Lstat("missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat(missing) = %v", err)
	}
	if d.Gone() {
		t.Fatal("Gone before removal")
	}
	if err := d.Remove("f"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(sub); err != nil {
		t.Fatal(err)
	}
	if !d.Gone() {
		t.Fatal("not Gone after removal")
	}
	if err := d.Sync(); err != nil {
		t.Errorf("Sync of a removed directory: %v", err)
	}
}

func TestTailLinesIn(t *testing.T) {
	root := realTemp(t)
	d, err := OpenDir(root)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.WriteFile(filepath.Join(root, "log"), []byte("a\nb\nc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := TailLinesIn(d, "log", 2, 1<<10, nil)
	if err != nil || strings.Join(got, ",") != "b,c" {
		t.Fatalf("TailLinesIn = %q, %v", got, err)
	}
	if got, err := TailLinesIn(d, "none", 2, 1<<10, nil); got != nil || err != nil {
		t.Fatalf("missing: %q, %v", got, err)
	}
	if err := os.Link(filepath.Join(root, "log"), filepath.Join(root, "hard")); err != nil {
		t.Fatal(err)
	}
	if _, err := TailLinesIn(d, "hard", 2, 1<<10, nil); !errors.Is(err, ErrLinked) {
		t.Fatalf("a hard link's tail: %v", err)
	}
}

func TestCanonicalFollowsOnlyAdministratorsLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the links must be root's, or another user's")
	}
	root := realTemp(t)
	os.Chmod(root, 0o755)
	real := filepath.Join(root, "private", "var")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("private/var", filepath.Join(root, "var")); err != nil {
		t.Fatal(err)
	}
	if got := Canonical(filepath.Join(root, "var", "log", "x.log")); got != filepath.Join(real, "log", "x.log") {
		t.Errorf("a root link in a root directory: %s", got)
	}
	// A link another user owns stays as written (the pin refuses it).
	if err := os.Symlink(real, filepath.Join(root, "users")); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(filepath.Join(root, "users"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if p := filepath.Join(root, "users", "x.log"); Canonical(p) != p {
		t.Errorf("another user's link was followed: %s", Canonical(p))
	}
	if Canonical(filepath.Join(root, "users", "x.log"), 65534) != filepath.Join(real, "x.log") {
		t.Error("a link of a trusted uid was not followed")
	}
	// A root link in a directory others may write stays as written.
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if err := os.Symlink(real, filepath.Join(open, "l")); err != nil {
		t.Fatal(err)
	}
	if p := filepath.Join(open, "l", "x"); Canonical(p) != p {
		t.Errorf("a link in a world-writable directory was followed: %s", Canonical(p))
	}
	if Canonical("rel/x") != "rel/x" {
		t.Error("a relative path changed")
	}
}

// BenchmarkOpenDir is the pin a spawn takes again to compare with the one
// it holds: a directory seven elements deep (docs/benchmarks.md, "Pinned
// log directories").
func BenchmarkOpenDir(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	p := filepath.Join(root, "var", "log", "svc", "proxy")
	if err := os.MkdirAll(p, 0o700); err != nil {
		b.Fatal(err)
	}
	for _, walk := range []bool{false, true} {
		name := "one-call"
		if walk {
			name = "walk"
		}
		b.Run(name, func(b *testing.B) {
			testkit.Replace(b, &walkOnly, walk)
			for b.Loop() {
				d, err := OpenDir(p)
				if err != nil {
					b.Fatal(err)
				}
				d.Close()
			}
		})
	}
}
