//go:build unix

package jobs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"svcctl/internal/fsutil"
	"svcctl/internal/runas"
)

// TestResultFileRefusesLinkAndFIFO: the file a job leaves as its result is
// read only if it is a regular file: a link (to a file the job's user could
// not read) or a FIFO (which would hang the agent) is an unreadable result,
// recorded as such.
func TestResultFileRefusesLinkAndFIFO(t *testing.T) {
	secret := t.TempDir() + "/secret"
	os.WriteFile(secret, []byte("skipped stolen: the first line of a file the job could not read\n"), 0o600)
	for name, plant := range map[string]func(path string) error{
		"link": func(path string) error { return os.Symlink(secret, path) },
		"fifo": func(path string) error { return syscall.Mkfifo(path, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			rf, err := newResultFile(nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := plant(rf.path); err != nil {
				t.Fatal(err)
			}
			line, err := rf.read()
			if err == nil || strings.Contains(line, "stolen") {
				t.Fatalf("read %q, %v: want an error", line, err)
			}
			if _, err := os.Stat(rf.dir); !os.IsNotExist(err) {
				t.Fatalf("result dir left behind: %v", err)
			}
		})
	}
}

// TestResultDirCannotBeSwapped: a job's result directory sits in a parent
// only the agent's user may write (root's 0711 for a system agent), owned
// by the job's user; were it replaced by a link to a directory holding a
// root-only file named result, the read refuses the link instead of
// reading that file's first line. Failed before: the directory was the
// job's, in the sticky temp directory, and the agent read the path.
func TestResultDirCannotBeSwapped(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the job runs as nobody")
	}
	rf, err := newResultFile(&runas.Identity{Username: "nobody", UID: 65534, GID: 65534})
	if err != nil {
		t.Fatal(err)
	}
	parent, _ := os.Stat(filepath.Dir(rf.dir))
	if parent.Mode().Perm() != 0o711 || parent.Sys().(*syscall.Stat_t).Uid != 0 {
		t.Fatalf("the parent is %v uid %d, want root's 0711", parent.Mode(), parent.Sys().(*syscall.Stat_t).Uid)
	}
	own, _ := os.Stat(rf.dir)
	if own.Sys().(*syscall.Stat_t).Uid != 65534 {
		t.Fatalf("the run's directory is not the job user's: uid %d", own.Sys().(*syscall.Stat_t).Uid)
	}
	secret := t.TempDir()
	os.WriteFile(filepath.Join(secret, "result"), []byte("failed stolen: root only\n"), 0o600)
	if err := os.Rename(rf.dir, rf.dir+".away"); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(rf.dir + ".away")
	if err := os.Symlink(secret, rf.dir); err != nil {
		t.Fatal(err)
	}
	line, err := rf.read()
	if err == nil || strings.Contains(line, "stolen") || !errors.Is(err, fsutil.ErrSymlink) {
		t.Fatalf("read through a swapped directory: %q, %v", line, err)
	}
	if b, _ := os.ReadFile(filepath.Join(secret, "result")); string(b) != "failed stolen: root only\n" {
		t.Fatalf("the root-only file changed: %q", b)
	}
}

// A hard link to a root-only file at the result's name is refused too.
func TestResultFileRefusesAHardLink(t *testing.T) {
	rf, err := newResultFile(nil)
	if err != nil {
		t.Fatal(err)
	}
	// On the parent's file system (a hard link cannot cross one).
	secret := filepath.Join(filepath.Dir(rf.dir), "secret-of-"+filepath.Base(rf.dir))
	os.WriteFile(secret, []byte("failed stolen: root only\n"), 0o600)
	defer os.Remove(secret)
	if err := os.Link(secret, rf.path); err != nil {
		t.Skipf("no hard link across these directories: %v", err)
	}
	if line, err := rf.read(); err == nil || strings.Contains(line, "stolen") || !errors.Is(err, fsutil.ErrLinked) {
		t.Fatalf("read a hard link: %q, %v", line, err)
	}
}
