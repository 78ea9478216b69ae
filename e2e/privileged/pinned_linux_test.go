//go:build linux

package privileged

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// A service's own user may keep its log in a directory they own
// (docs/security.md). The review found that the root agent checked that
// directory at the spawn and then handled the log by path: replacing the
// directory by a link made the log cap truncate a root-only file of the
// log's name and copy its tail, the restart's rotation rename it, and with
// a race the agent created files holding the service's output in a
// root-only directory. Every test here runs the agent twice: with openat2
// and with the per-element walk that replaces it where the call is
// filtered (noopenat2).

func testutilClient() *http.Client { return &http.Client{Timeout: 5 * time.Second} }

func bothResolutions(t *testing.T, fn func(t *testing.T, walk bool)) {
	for _, walk := range []bool{false, true} {
		name := "openat2"
		if walk {
			name = "walk"
		}
		t.Run(name, func(t *testing.T) { fn(t, walk) })
	}
}

// secretDir is a root-only directory holding root-only files with the
// names the attack aims at (web.log, web.prev.log, web.log.1).
func secretDir(t *testing.T) string {
	t.Helper()
	dir := rootDir(t, filepath.Join("vault", "secret")) // alone in its parent: nothing else changes beside it
	os.Chmod(dir, 0o700)
	body := strings.Repeat("root only: do not truncate, copy or rename\n", 200) // past log_max
	for _, n := range []string{"web.log", "web.prev.log", "web.log.1"} {
		writeAs(t, filepath.Join(dir, n), body, 0o600, 0, 0)
	}
	return dir
}

// attackerLogService is a root config with one service that runs as the
// attacker, its log in a directory the attacker owns, cut at 4 KiB, and
// restarted as fast as it fails (no backoff to speak of, never given up).
func attackerLogService(t *testing.T, logs, addr string) (cfg, state string) {
	t.Helper()
	cfg, state = rootConfig(t, webService("web", addr, fmt.Sprintf(`user = %q
log = %q
log_max = "4KiB"
interval = "1s"
[service.restart]
backoff_initial = "50ms"
backoff_max = "100ms"
give_up_after = 0
loop_restarts = 0`, attacker.name, filepath.Join(logs, "web.log"))))
	t.Cleanup(func() { asRoot(t, nil, "--config", cfg, "stop", "web") })
	return cfg, state
}

// crash asks testsvc to exit at once (the agent then restarts it).
func crash(addr string) {
	if resp, err := testutilClient().Get("http://" + addr + "/control/crash"); err == nil {
		resp.Body.Close()
	}
}

// waitRun waits for a run_trace row whose JSON holds every part.
func waitRun(t *testing.T, cfg string, parts ...string) {
	t.Helper()
	var last string
	testutil.WaitForSaying(t, 30*time.Second, fmt.Sprintf("a run with %q", parts), func() bool {
		last = asRoot(t, nil, "--config", cfg, "runs", "--json", "-n", "50").stdout
		for _, p := range parts {
			if !strings.Contains(last, p) {
				return false
			}
		}
		return true
	}, func() string { return last })
}

// The directory swap without a race: the attacker moves their log
// directory away and puts a link to a root-only directory in its place.
// The cap and the restart's rotation act in the directory the agent
// pinned; the next spawn is refused and recorded; a root `svc-ctl restart`
// and `svc-ctl logs` refuse the link. Nothing in the root-only directory is
// truncated, copied, renamed or created.
func TestAttackLogDirSwapped(t *testing.T) {
	requirePrivileged(t)
	bothResolutions(t, func(t *testing.T, walk bool) {
		home := attackerDir(t, "home")
		logs := filepath.Join(home, "logs")
		os.Mkdir(logs, 0o755)
		os.Chown(logs, attacker.uid, attacker.gid)
		secret := secretDir(t)
		before, parentBefore := dirState(t, secret), dirState(t, filepath.Dir(secret))
		addr := freeAddr(t)
		cfg, _ := attackerLogService(t, logs, addr)
		startAgent(t, cfg, walk)
		waitHealthy(t, addr, 20*time.Second)

		if err := os.Rename(logs, logs+".real"); err != nil {
			t.Fatal(err)
		}
		symlinkAs(t, secret, logs)
		// The cap cuts in the pinned directory: the service's flood lands
		// there and is cut there (a new web.log.1).
		flood(addr, 1)
		testutil.WaitFor(t, 20*time.Second, "a cut of the flood in the pinned directory", func() bool {
			_, err := os.Stat(filepath.Join(logs+".real", "web.log.1"))
			return err == nil
		})
		// The agent's own restart: the evidence is rotated in the pinned
		// directory, the spawn refused and recorded.
		crash(addr)
		waitRun(t, cfg, "spawn-error", logs+" is a symbolic link")
		if _, err := os.Stat(filepath.Join(logs+".real", "web.prev.log")); err != nil {
			t.Errorf("the rotation did not happen in the pinned directory: %v", err)
		}
		// A person's restart and logs, as root: each pins the path now, a link.
		r := asRoot(t, nil, "--config", cfg, "restart", "web")
		if r.code == 0 || !contains(r, logs+" is a symbolic link") {
			t.Errorf("restart through the link:\n%v", r)
		}
		l := asRoot(t, nil, "--config", cfg, "logs", "web")
		if l.code == 0 || strings.Contains(l.stdout, "root only") || !contains(l, logs+" is a symbolic link") {
			t.Errorf("logs through the link:\n%v", l)
		}
		if got := dirState(t, secret); got != before {
			t.Fatalf("the root-only directory changed:\nbefore:\n%s\nafter:\n%s", before, got)
		}
		if got := dirState(t, filepath.Dir(secret)); got != parentBefore {
			t.Fatalf("something was created beside the root-only directory:\nbefore:\n%s\nafter:\n%s", parentBefore, got)
		}
	})
}

// The race: the attacker exchanges their log directory and a link to a
// root-only directory (renameat2 RENAME_EXCHANGE) in a loop for 20 s while
// the service is crashed, flooded and restarted by the agent and by root's
// `svc-ctl restart` again and again. Nothing outside the attacker's
// directory is created, changed or renamed. Failed before: within about a
// minute root:attacker 0640 files holding the service's output appeared in
// the root-only directory.
func TestAttackLogDirExchangeRace(t *testing.T) {
	requirePrivileged(t)
	bothResolutions(t, func(t *testing.T, walk bool) {
		home := attackerDir(t, "home")
		logs := filepath.Join(home, "logs")
		os.Mkdir(logs, 0o755)
		os.Chown(logs, attacker.uid, attacker.gid)
		secret := secretDir(t)
		before, parentBefore := dirState(t, secret), dirState(t, filepath.Dir(secret))
		addr := freeAddr(t)
		cfg, _ := attackerLogService(t, logs, addr)
		startAgent(t, cfg, walk)
		waitHealthy(t, addr, 20*time.Second)

		swap := filepath.Join(home, "swap")
		symlinkAs(t, secret, swap)
		stop := filepath.Join(rootDir(t, "stop"), "stop")
		os.Chmod(filepath.Dir(stop), 0o755)
		ex, out := asAttackerHelper(t, "exchange", logs, swap, stop)

		deadline := time.Now().Add(20 * time.Second)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // the agent's restarts: crash and flood the service
			defer wg.Done()
			for time.Now().Before(deadline) {
				flood(addr, 1)
				crash(addr)
				time.Sleep(50 * time.Millisecond)
			}
		}()
		restarts := 0
		for time.Now().Before(deadline) { // a person's restarts, as root
			asRoot(t, nil, "--config", cfg, "restart", "web")
			restarts++
		}
		wg.Wait()
		os.WriteFile(stop, nil, 0o644)
		if err := ex.Wait(); err != nil {
			t.Fatalf("the exchange loop failed: %v\n%s", err, out)
		}
		t.Logf("%s exchanges, %d restarts by root's svc-ctl restart", strings.TrimSpace(out.String()), restarts)
		if got := dirState(t, secret); got != before {
			t.Fatalf("the root-only directory changed:\nbefore:\n%s\nafter:\n%s", before, got)
		}
		if got := dirState(t, filepath.Dir(secret)); got != parentBefore {
			t.Fatalf("something was created beside the root-only directory:\nbefore:\n%s\nafter:\n%s", parentBefore, got)
		}
		if fi, err := os.Lstat(logs); err != nil || !fi.IsDir() {
			t.Fatalf("the exchange loop did not leave the directory in place: %v", err)
		}
	})
}

// A FIFO at the log's name: neither the cap, the rotation nor the spawn
// hangs on it; the spawn is refused and recorded, and the agent goes on.
func TestAttackLogFIFO(t *testing.T) {
	requirePrivileged(t)
	bothResolutions(t, func(t *testing.T, walk bool) {
		home := attackerDir(t, "home")
		addr := freeAddr(t)
		cfg, _ := attackerLogService(t, home, addr)
		startAgent(t, cfg, walk)
		waitHealthy(t, addr, 20*time.Second)
		log := filepath.Join(home, "web.log")
		os.Remove(log)
		if err := syscall.Mkfifo(log, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Lchown(log, attacker.uid, attacker.gid)
		crash(addr)
		waitRun(t, cfg, "spawn-error", log+" is not a regular file")
		if r := asRoot(t, nil, "--config", cfg, "status"); r.code > 1 || !strings.Contains(r.stdout, "web") {
			t.Fatalf("the agent's state is not readable after the FIFO:\n%v", r)
		}
	})
}

// A hard link to a root-only file at the log's name (made by the test as
// root: a host where protected_hardlinks is off): the cap does not
// truncate it, the rotation does not move it, the spawn refuses it and
// the refusal is recorded.
func TestAttackLogHardLink(t *testing.T) {
	requirePrivileged(t)
	bothResolutions(t, func(t *testing.T, walk bool) {
		home := attackerDir(t, "home")
		secret := secretDir(t)
		victimFile := filepath.Join(secret, "web.log")
		content, _ := os.ReadFile(victimFile)
		addr := freeAddr(t)
		cfg, state := attackerLogService(t, home, addr)
		startAgent(t, cfg, walk)
		waitHealthy(t, addr, 20*time.Second)
		log := filepath.Join(home, "web.log")
		os.Remove(log)
		if err := os.Link(victimFile, log); err != nil {
			t.Fatal(err)
		}
		agentLog := func() string { b, _ := os.ReadFile(filepath.Join(state, "agent.log")); return string(b) }
		testutil.WaitForSaying(t, 20*time.Second, "the cap's refusal of the hard link in agent.log", func() bool {
			return strings.Contains(agentLog(), "has more than one hard link")
		}, agentLog)
		crash(addr)
		waitRun(t, cfg, "spawn-error", log+" has more than one hard link")
		assertUnchanged(t, victimFile, string(content))
		if _, err := os.Lstat(log); err != nil {
			t.Fatalf("the hard link was moved: %v", err)
		}
	})
}
