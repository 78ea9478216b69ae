package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// The shapes services really come in. Each script is the service under
// test (svc-ctl itself never runs a shell); "$@" is the real server, the
// test binary acting as testsvc.
type shape struct {
	name    string
	scripts map[string]string // file name -> body; "run" is argv[0]
	// live is how many processes serve once the shape settled (the launcher
	// of "launcher" has exited by then); owned says whether the session
	// alone owns the server (the daemon left it).
	live  int
	owned bool
}

var shapes = []shape{
	{name: "shim", live: 1, owned: true, scripts: map[string]string{
		// pyenv-like: work first (a subshell, a file), then exec the real program
		"run": "#!/bin/sh\nv=$(cat \"$0\" | wc -l)\n: > \"${0%/*}/shim-worked-$v\"\nexec \"$@\"\n"}},
	{name: "wrapper", live: 2, owned: true, scripts: map[string]string{
		"run": "#!/bin/sh\n\"$@\"\necho wrapper: server ended with $?\n"}},
	{name: "npm", live: 3, owned: true, scripts: map[string]string{
		// npm -> sh -c -> node: three levels, none execs
		"run":    "#!/bin/sh\n/bin/sh \"${0%/*}/level2\" \"$@\"\necho npm: done\n",
		"level2": "#!/bin/sh\n\"$@\"\necho sh: done\n"}},
	{name: "launcher", live: 1, owned: true, scripts: map[string]string{
		"run": "#!/bin/sh\n\"$@\" &\nexit 0\n"}},
	{name: "daemon", live: 1, owned: true, scripts: map[string]string{
		// double fork + setsid: setsid -f forks, the child leaves the session;
		// the marker in its environment keeps it a member
		"run": "#!/bin/sh\nsetsid -f \"$@\"\nexit 0\n"}},
	{name: "daemon-noenv", live: 1, owned: false, scripts: map[string]string{
		// the same daemon with its environment cleared: nothing proves it
		// (no cgroup, no marker, no parent link, not seen before it left)
		"run": "#!/bin/sh\nsetsid -f /usr/bin/env -i PROC_TEST_HELPER=testsvc \"$@\"\nexit 0\n"}},
}

// served is a shape started and serving.
type served struct {
	c      *Child
	pid    int32 // the server's pid
	port   string
	log    string
	killer func() // ends the server by pid when the test is over (it may be a stranger)
}

func startShape(t *testing.T, sh shape, cgroup string, mode string) served {
	t.Helper()
	return startShapeArgs(t, sh, cgroup, mode)
}

// startShapeArgs is startShape with more arguments for the server.
func startShapeArgs(t *testing.T, sh shape, cgroup string, mode string, args ...string) served {
	t.Helper()
	dir := t.TempDir()
	for name, body := range sh.scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if strings.HasPrefix(sh.name, "daemon") {
		if _, err := exec.LookPath("setsid"); err != nil {
			t.Skip("no setsid(1) to daemonize with")
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	s := SpawnSpec{
		Argv:    append([]string{filepath.Join(dir, "run"), exe, "--addr", "127.0.0.1:0"}, args...),
		Env:     map[string]string{helperEnv: mode},
		LogPath: filepath.Join(dir, "runtime.log"),
		Name:    "web",
		Cgroup:  cgroup,
	}
	c, err := Spawn(s)
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	log := waitLog(t, s.LogPath, "listening on")
	pid := atoi32(t, regexp.MustCompile(`testsvc: pid (\d+)`).FindStringSubmatch(log))
	port := regexp.MustCompile(`listening on 127\.0\.0\.1:(\d+)`).FindStringSubmatch(log)
	if port == nil {
		t.Fatalf("no port in log:\n%s", log)
	}
	sv := served{c: c, pid: pid, port: port[1], log: s.LogPath}
	serverID, err := IdentityOf(pid)
	if err != nil {
		t.Fatalf("server pid %d: %v", pid, err)
	}
	t.Cleanup(func() {
		stopQuietly(c.Identity)
		if ok, _ := Match(serverID); ok { // a stranger to svc-ctl, not to the test that made it
			syscall.Kill(int(pid), syscall.SIGKILL)
		}
		removeCgroup(c.Cgroup)
	})
	wantHealth(t, sv.port)
	return sv
}

func atoi32(t *testing.T, m []string) int32 {
	t.Helper()
	if m == nil {
		t.Fatal("no pid in log")
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return int32(n)
}

func wantHealth(t *testing.T, port string) {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + port + "/health")
	if err != nil {
		t.Fatalf("health: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("health = %d", resp.StatusCode)
	}
}

func portFree(port string) bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second)
	if err != nil {
		return true
	}
	c.Close()
	return false
}

// settled waits until the tree has want members (a launcher takes a moment
// to exit) and returns it.
func settled(t *testing.T, inst Instance, want int) Tree {
	t.Helper()
	var tr Tree
	testutil.WaitFor(t, 20*time.Second, fmt.Sprintf("the tree to settle at %d processes", want), func() bool {
		var err error
		tr, err = Members(inst)
		if err != nil {
			t.Fatal(err)
		}
		return tr.Len() == want
	})
	return tr
}

func TestShapesStopWholeTree(t *testing.T) {
	for _, sh := range shapes {
		for _, cg := range []string{"session", "cgroup"} {
			t.Run(sh.name+"/"+cg, func(t *testing.T) {
				parent := ""
				if cg == "cgroup" {
					parent = testCgroupParent(t)
				}
				sv := startShape(t, sh, parent, "testsvc")
				owned := sh.owned || parent != ""
				if !owned {
					tr := settled(t, sv.c.Instance, 0)
					if tr.Has(sv.pid) {
						t.Fatalf("the daemon %d is in the tree %+v without a cgroup", sv.pid, tr)
					}
					h, err := PortHolder(context.Background(), uint32(atoi32(t, []string{"", sv.port})))
					if err != nil || h == nil || h.PID != sv.pid || h.User == "" || h.Exe == "" {
						t.Fatalf("PortHolder = %+v, %v; want the daemon %d named with its program and user", h, err, sv.pid)
					}
					res, err := StopTree(context.Background(), sv.c.Instance, 5*time.Second)
					if err != nil || !res.AlreadyGone {
						t.Fatalf("StopTree = %+v, %v; want already gone (the daemon is a stranger)", res, err)
					}
					wantHealth(t, sv.port) // a stranger is never signalled
					return
				}
				tr := settled(t, sv.c.Instance, sh.live)
				if !tr.Has(sv.pid) {
					t.Fatalf("server %d not in the tree %+v", sv.pid, tr)
				}
				if sh.name == "shim" && (sv.pid != sv.c.PID || !tr.LeaderAlive()) {
					t.Fatalf("the shim exec'd the server: pid %d should be the leader %d, alive", sv.pid, sv.c.PID)
				}
				if parent != "" && !strings.Contains(strings.Join(tr.Via, ","), "cgroup") {
					t.Fatalf("Via = %v, want cgroup", tr.Via)
				}
				res, err := StopTree(context.Background(), sv.c.Instance, 10*time.Second)
				if err != nil {
					t.Fatalf("StopTree: %v", err)
				}
				if len(res.Members) != sh.live {
					t.Fatalf("StopResult %s lists %d members, want %d: %+v", res, len(res.Members), sh.live, res.Members)
				}
				for _, m := range res.Members {
					if m.Ended != "SIGTERM" {
						t.Errorf("member %+v ended %q, want SIGTERM", m, m.Ended)
					}
					if Alive(m.PID) {
						t.Errorf("member %d still alive after StopTree", m.PID)
					}
				}
				if !portFree(sv.port) {
					t.Errorf("port %s still taken after StopTree", sv.port)
				}
				if tr, _ := Members(sv.c.Instance); tr.Len() != 0 {
					t.Errorf("tree after StopTree: %+v", tr)
				}
				if parent != "" {
					if _, err := os.Stat(sv.c.Cgroup); !errors.Is(err, os.ErrNotExist) {
						t.Errorf("instance cgroup %s left behind (stat: %v)", sv.c.Cgroup, err)
					}
				}
			})
		}
	}
}

// A server that ignores SIGTERM behind a wrapper that stays its parent: the
// wrapper ends on SIGTERM, the server is killed at the timeout.
func TestShapeIgnoringSIGTERM(t *testing.T) {
	sv := startShape(t, shapes[1], "", "testsvc-ignore-term")
	settled(t, sv.c.Instance, 2)
	res, err := StopTree(context.Background(), sv.c.Instance, 500*time.Millisecond)
	if err != nil {
		t.Fatalf("StopTree: %v", err)
	}
	ends := map[int32]string{}
	for _, m := range res.Members {
		ends[m.PID] = m.Ended
	}
	if ends[sv.c.PID] != "SIGTERM" || ends[sv.pid] != "SIGKILL" || !res.KilledStragglers || res.Signal != "SIGTERM" {
		t.Fatalf("StopResult %s %+v: want the wrapper ended on SIGTERM, the server killed by SIGKILL", res, res.Members)
	}
	if !portFree(sv.port) {
		t.Fatalf("port %s still taken", sv.port)
	}
	<-sv.c.Done
	if got := sv.c.Exit(); got != "killed by SIGTERM" {
		t.Fatalf("wrapper Exit() = %q, want killed by SIGTERM", got)
	}
}

// The launcher exits 0 while its server lives on: the tree is the server,
// KillTree ends it, and WatchTree closes only then.
func TestLauncherTreeOutlivesLeader(t *testing.T) {
	sv := startShape(t, shapes[3], "", "testsvc")
	<-sv.c.Done
	if sv.c.Exit() != "exited with code 0" {
		t.Fatalf("launcher Exit() = %q", sv.c.Exit())
	}
	tr := settled(t, sv.c.Instance, 1)
	if tr.LeaderAlive() || !tr.Has(sv.pid) {
		t.Fatalf("tree %+v: want the server alone, the launcher gone", tr)
	}
	gone, err := WatchTree(sv.c.Instance)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-gone:
		t.Fatal("WatchTree closed while the server runs")
	case <-time.After(50 * time.Millisecond):
	}
	tf, err := TreeFactsOf(sv.c.Instance, true)
	if err != nil || tf.Count != 1 || tf.LeaderAlive || tf.RSSBytes == 0 || len(tf.ListenPorts) != 1 {
		t.Fatalf("TreeFactsOf = %+v, %v", tf, err)
	}
	if err := KillTree(sv.c.Instance); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gone:
	case <-time.After(20 * time.Second):
		t.Fatal("WatchTree did not close after the tree was killed")
	}
	if !portFree(sv.port) {
		t.Fatal("port still taken after KillTree")
	}
	if err := KillTree(sv.c.Instance); !errors.Is(err, ErrGone) {
		t.Fatalf("second KillTree = %v, want ErrGone", err)
	}
}

// The npm-like tree: a member forks while the tree is watched; WatchTree
// closes only when the last one ends.
func TestWatchTreeFindsLateMembers(t *testing.T) {
	sv := startShape(t, shapes[2], "", "testsvc")
	settled(t, sv.c.Instance, 3)
	gone, err := WatchTree(sv.c.Instance)
	if err != nil {
		t.Fatal(err)
	}
	// The server dies first; the shells above it end on their own after it.
	syscall.Kill(int(sv.pid), syscall.SIGKILL)
	select {
	case <-gone:
	case <-time.After(20 * time.Second):
		t.Fatal("WatchTree did not close once the tree ended")
	}
	if tr, _ := Members(sv.c.Instance); tr.Len() != 0 {
		t.Fatalf("WatchTree closed with members left: %+v", tr)
	}
}

// testCgroupParent makes a cgroup v2 directory to stand for the agent's
// delegated cgroup, or skips where there is none to make (not root, no
// cgroup v2).
func testCgroupParent(t *testing.T) string {
	t.Helper()
	mnt, ok := Cgroup2Mount()
	if !ok {
		t.Skip("no cgroup v2 mounted")
	}
	dir := filepath.Join(mnt, fmt.Sprintf("svcctl-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot create a cgroup to delegate (%v): cgroup ownership untested here", err)
	}
	t.Cleanup(func() {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				killCgroup(filepath.Join(dir, e.Name()))
				removeCgroup(filepath.Join(dir, e.Name()))
			}
		}
		testutil.WaitFor(t, 10*time.Second, "the test cgroup to empty", func() bool { return syscall.Rmdir(dir) == nil })
	})
	return dir
}
