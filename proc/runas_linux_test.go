package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"svcctl/internal/runas"
)

// TestSpawnRunAs: a root agent starts
// the instance as the configured user (uid, gid, groups; HOME, USER,
// LOGNAME), with the base environment and never the caller's, and keeps
// the log its own while letting that user's group read it.
func TestSpawnRunAs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("starting a process as another user needs root")
	}
	id, err := runas.Lookup("nobody", "")
	if err != nil {
		t.Skipf("no user nobody here: %v", err)
	}
	t.Setenv("SVCCTL_CALLER_LEAK", "from-the-shell")
	dir := t.TempDir()
	run := func(argv ...string) string {
		log := filepath.Join(dir, argv[0][strings.LastIndexByte(argv[0], '/')+1:]+".log")
		c, err := Spawn(SpawnSpec{Argv: argv, Env: map[string]string{"FROM_CONFIG": "1"}, LogPath: log, RunAs: id})
		if err != nil {
			t.Fatal(err)
		}
		<-c.Done
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(log)
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != 0 || st.Gid != id.GID || fi.Mode().Perm() != 0o640 {
			t.Errorf("log %s: owner %d:%d mode %v; want 0:%d 0640", log, st.Uid, st.Gid, fi.Mode().Perm(), id.GID)
		}
		return string(b)
	}
	out := run("/usr/bin/id", "-u")
	if strings.TrimSpace(out) != strconv.Itoa(int(id.UID)) {
		t.Errorf("id -u = %q, want %d", out, id.UID)
	}
	env := run("/usr/bin/env")
	for _, want := range []string{"USER=nobody\n", "LOGNAME=nobody\n", "HOME=" + id.Home + "\n", "FROM_CONFIG=1\n", "PATH="} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %q:\n%s", want, env)
		}
	}
	if strings.Contains(env, "SVCCTL_CALLER_LEAK") {
		t.Errorf("the caller's environment reached the service:\n%s", env)
	}
}

// TestSpawnRefusesLinkedLog: a link planted as the service's
// log is refused and its target untouched.
func TestSpawnRefusesLinkedLog(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep\n"), 0o600)
	log := filepath.Join(dir, "runtime.log")
	os.Symlink(victim, log)
	_, err := Spawn(SpawnSpec{Argv: []string{"/usr/bin/env"}, LogPath: log})
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Spawn with a linked log = %v, want refused", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Fatalf("the link's target changed: %q", b)
	}
}
