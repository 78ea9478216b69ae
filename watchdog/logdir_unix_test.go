//go:build unix

package watchdog

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// logDirEnv is a service that runs as nobody (/bin/sleep, healthy by
// health.exec /bin/true) with its log in a directory nobody owns, under a
// directory nobody owns too: what docs/security.md allows for a service's
// own user. It needs root.
func logDirEnv(t *testing.T) (e *testEnv, home, logs string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the service runs as nobody, whose directory holds its log")
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	for p := root; p != os.TempDir() && p != "/"; p = filepath.Dir(p) {
		os.Chmod(p, 0o755) // nobody runs the copy of testsvc below
	}
	bin := filepath.Join(root, "testsvc")
	if b, err := os.ReadFile(testsvcBin); err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatalf("copy testsvc: %v", err)
	}
	home = filepath.Join(root, "home")
	logs = filepath.Join(home, "logs")
	for _, d := range []string{home, logs} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	addr := testutil.FreeAddr(t)
	e = newEnv(t, testutil.Service{Name: "web", Addr: addr, Command: []string{bin, "--addr", addr},
		ExtraTOML: fmt.Sprintf("user = \"nobody\"\nlog = %q\n", filepath.Join(logs, "web.log"))})
	t.Cleanup(func() { e.sup.Stop(context.Background(), "web") })
	wantResult(t, e.ensure("web", Request{Manual: true}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	return e, home, logs
}

// The service's user replaces its log directory after the agent pinned it
// (here by another directory of theirs, then by a link to a root-only
// directory): the next start is refused and recorded, and nothing is
// created, renamed or truncated in what the path names now. Failed before:
// the start followed the path.
func TestLogDirReplacedIsRefused(t *testing.T) {
	e, home, logs := logDirEnv(t)
	if err := os.Rename(logs, filepath.Join(home, "pinned")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(logs, 65534, 65534)
	r := e.ensure("web", Request{Trigger: runtrace.TriggerManual, Restart: true})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonSpawnError)
	if !strings.Contains(r.Message, "was replaced since svc-ctl checked it") || !strings.Contains(r.Message, logs) {
		t.Fatalf("the refusal does not say what and where: %s", r.Message)
	}
	if ents, _ := os.ReadDir(logs); len(ents) != 0 {
		t.Fatalf("the agent wrote into the directory that replaced the pinned one: %v", ents)
	}
	if _, err := os.Stat(filepath.Join(home, "pinned", "web.prev.log")); err != nil {
		t.Fatalf("the evidence was not rotated in the pinned directory: %v", err)
	}

	// A link to a root-only directory in its place: refused, naming it.
	secret := filepath.Join(t.TempDir(), "secret")
	os.Mkdir(secret, 0o700)
	os.WriteFile(filepath.Join(secret, "web.log"), []byte("root only\n"), 0o600)
	os.Remove(logs)
	if err := os.Symlink(secret, logs); err != nil {
		t.Fatal(err)
	}
	r = e.ensure("web", Request{Trigger: runtrace.TriggerManual, Restart: true})
	wantResult(t, r, runtrace.OutcomeFailed, runtrace.ReasonSpawnError)
	if !strings.Contains(r.Message, logs+" is a symbolic link") {
		t.Fatalf("the refusal does not name the link: %s", r.Message)
	}
	if b, _ := os.ReadFile(filepath.Join(secret, "web.log")); string(b) != "root only\n" {
		t.Fatalf("the root-only file changed: %q", b)
	}
	if ents, _ := os.ReadDir(secret); len(ents) != 1 {
		t.Fatalf("files appeared in the root-only directory: %v", ents)
	}

	// A reload pins again: the directory the path names now is checked
	// and taken.
	os.Remove(logs)
	os.Mkdir(logs, 0o755)
	os.Chown(logs, 65534, 65534)
	e.sup.SetConfig(e.Cfg)
	wantResult(t, e.ensure("web", Request{Trigger: runtrace.TriggerManual, Restart: true}), runtrace.OutcomeOK, runtrace.ReasonRestarted)
	if _, err := os.Stat(filepath.Join(logs, "web.log")); err != nil {
		t.Fatalf("after the reload the log is not in the new directory: %v", err)
	}
}

// A log directory only administrators can change
// that was replaced is checked and pinned again at the next start: nobody
// but root could have steered it.
func TestLogDirReplacedByAnAdministratorIsPinnedAgain(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the state dir's chain must be root's")
	}
	root, _ := filepath.EvalSymlinks(t.TempDir())
	dir := filepath.Join(root, "logs")
	e := newEnv(t, testutil.Service{Name: "web", Addr: testutil.FreeAddr(t), ExtraTOML: fmt.Sprintf("log = %q\n", filepath.Join(dir, "web.log"))})
	t.Cleanup(func() { e.sup.Stop(context.Background(), "web") })
	wantResult(t, e.ensure("web", Request{Manual: true}), runtrace.OutcomeOK, runtrace.ReasonStarted)
	for p := dir; p != "/"; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0 {
			t.Skipf("%s is writable by others here: not an administrators' path", p)
		}
	}
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	r := e.ensure("web", Request{Trigger: runtrace.TriggerManual, Restart: true})
	wantResult(t, r, runtrace.OutcomeOK, runtrace.ReasonRestarted)
	if _, err := os.Stat(filepath.Join(dir, "web.log")); err != nil {
		t.Fatalf("the new instance's log is not in the new directory: %v", err)
	}
}
