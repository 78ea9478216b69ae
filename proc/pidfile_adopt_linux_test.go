package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The adoption rules, each with the process or the file that breaks it.
func TestAdoptPidFile(t *testing.T) {
	sv := startShape(t, shapeNamed(t, "daemon-noenv"), "", "testsvc")
	settled(t, sv.c.Instance, 0) // nothing proves the daemon: only its pid file will
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.pid", strconv.Itoa(int(sv.pid))+"\n")
	id, err := AdoptPidFile(good, sv.c.Instance)
	if err != nil || id.PID != sv.pid || id.Start == 0 {
		t.Fatalf("AdoptPidFile = %+v, %v; want the daemon", id, err)
	}
	inst := sv.c.Instance
	inst.Main, inst.MainVia = &id, "pid_file"
	if tr, _ := Members(inst); !tr.Has(sv.pid) || tr.Members[0].Via != "pid_file" {
		t.Fatalf("Members with the adopted daemon = %+v", tr)
	}

	link := filepath.Join(dir, "link.pid")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	older, _ := IdentityOf(int32(os.Getpid())) // the test: started before the instance
	otherUID := sv.c.Instance
	uid := *otherUID.UID + 1
	otherUID.UID = &uid
	for _, c := range []struct {
		name, path string
		inst       Instance
		gone       bool
	}{
		{"missing", filepath.Join(dir, "none.pid"), sv.c.Instance, true},
		{"a link", link, sv.c.Instance, false},
		{"a directory", dir, sv.c.Instance, false},
		{"not a pid", write("junk.pid", "hello\n"), sv.c.Instance, false},
		{"init", write("init.pid", "1\n"), sv.c.Instance, false},
		{"a stale pid", write("stale.pid", "2147483000\n"), sv.c.Instance, false},
		{"started before the instance", write("old.pid", strconv.Itoa(int(older.PID))+"\n"), sv.c.Instance, false},
		{"another user's file and process", good, otherUID, false},
	} {
		_, err := AdoptPidFile(c.path, c.inst)
		switch {
		case c.gone && !errors.Is(err, ErrGone):
			t.Errorf("%s: err = %v, want ErrGone", c.name, err)
		case !c.gone && !errors.Is(err, ErrNotAdopted):
			t.Errorf("%s: err = %v, want ErrNotAdopted", c.name, err)
		}
	}
	if os.Geteuid() == 0 {
		// A file the service's user does not own (nor root): refused.
		nobody := write("nobody.pid", strconv.Itoa(int(sv.pid))+"\n")
		if err := os.Chown(nobody, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := AdoptPidFile(nobody, sv.c.Instance); !errors.Is(err, ErrNotAdopted) {
			t.Errorf("a file owned by nobody: err = %v, want ErrNotAdopted", err)
		}
	}
}
