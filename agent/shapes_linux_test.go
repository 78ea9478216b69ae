//go:build linux

package agent

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testenv"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/report"
	"svcctl/runtrace"
)

// The shapes services come in (docs/architecture.md, "What an instance is"),
// each a sh script in front of testsvc: the service under test, never run
// by svc-ctl through a shell.
var treeShapes = []struct {
	name    string
	scripts map[string]string
	live    int // processes of the tree once it serves
	daemon  bool
}{
	{name: "shim", live: 1, scripts: map[string]string{
		"run": "#!/bin/sh\nn=$(cat \"$0\" | wc -c)\n[ \"$n\" -gt 0 ] || exit 9\nexec \"$@\"\n"}},
	{name: "wrapper", live: 2, scripts: map[string]string{
		"run": "#!/bin/sh\n\"$@\"\necho wrapper: server ended with $?\n"}},
	{name: "npm", live: 3, scripts: map[string]string{
		"run":    "#!/bin/sh\n/bin/sh \"${0%/*}/level2\" \"$@\"\n",
		"level2": "#!/bin/sh\n\"$@\"\necho level2: done\n"}},
	{name: "launcher", live: 1, scripts: map[string]string{
		"run": "#!/bin/sh\n\"$@\" &\nexit 0\n"}},
	{name: "daemon", live: 1, daemon: true, scripts: map[string]string{
		"run": "#!/bin/sh\nsetsid -f \"$@\"\nexit 0\n"}},
}

// TestShapesUnderTheAgent: for every shape, under a running agent: start,
// a hang (SIGSTOP of the server) replaced with the whole old tree gone, an
// agent restart (the new agent adopts the tree), a drill, and a stop that
// leaves the port free and no member alive. A daemon that leaves its
// session is owned by the marker in its environment, with or without a
// cgroup.
func TestShapesUnderTheAgent(t *testing.T) {
	for _, sh := range treeShapes {
		modes := []string{"session"}
		if sh.daemon || sh.name == "npm" {
			modes = append(modes, "cgroup")
		}
		for _, mode := range modes {
			t.Run(sh.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				o := Options{Cgroup: "-"}
				if mode == "cgroup" {
					o.Cgroup = testCgroup(t)
				}
				shapeLifecycle(t, sh.scripts, sh.live, o)
			})
		}
	}
}

func shapeEnv(t *testing.T, scripts map[string]string) (*testEnv, string) {
	t.Helper()
	if _, err := exec.LookPath("setsid"); err != nil && strings.Contains(scripts["run"], "setsid") {
		t.Skip("no setsid(1)")
	}
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	addr := testutil.FreeAddr(t)
	e := newEnv(t, testutil.Service{Name: "web", Addr: addr, Interval: "1s",
		Command: []string{filepath.Join(dir, "run"), testsvcBin, "--addr", addr}})
	return e, addr
}

func shapeLifecycle(t *testing.T, scripts map[string]string, live int, o Options) {
	e, addr := shapeEnv(t, scripts)
	ctx := context.Background()
	first := startAgent(t, e, o)
	tree := waitServing(t, e, addr, live, time.Time{})
	if o.Cgroup != "-" && !strings.Contains(strings.Join(tree.Via, ","), "cgroup") {
		t.Fatalf("tree %+v: want it owned by a cgroup too", tree)
	}

	// Hang: SIGSTOP the server. The cycle names it as hung, and its stop
	// sends SIGCONT after SIGTERM, so it ends at once.
	hungAt := time.Now()
	hung := server(t, tree)
	syscall.Kill(int(hung.PID), syscall.SIGSTOP)
	tree2 := waitServing(t, e, addr, live, hungAt)
	wantGone(t, tree, "the hung instance's tree")
	r := latestStarted(e, "web", hungAt)
	if !strings.Contains(string(r.Detail), `"old_stop"`) || !strings.Contains(string(r.Detail), fmt.Sprintf(`"hung":["pid %d (`, hung.PID)) {
		t.Errorf("the restart's detail does not name the hung member and say how the old tree ended: %s", r.Detail)
	}

	// Restart the agent: the new one adopts the tree it did not spawn.
	if err := first.stop(t); err != nil {
		t.Fatal(err)
	}
	restartedAt := time.Now()
	startAgent(t, e, o)
	testutil.WaitFor(t, 10*time.Second, "the new agent's first cycle", func() bool {
		rs, _ := e.Store.Runs(ctx, runtrace.Filter{JobID: runtrace.WatchdogID("web"), Since: restartedAt, Outcome: runtrace.OutcomeOK})
		return len(rs) > 0
	})

	// Drill: the whole tree killed, the new agent brings it back.
	rep, err := report.Drill(ctx, e.Cfg, "web", 20*time.Second)
	if err != nil || !rep.Restored || rep.Members != live {
		t.Fatalf("drill = %+v, %v; want restored after killing %d processes", rep, err, live)
	}
	wantGone(t, tree2, "the drilled tree")
	tree3 := waitServing(t, e, addr, live, rep.KilledAt)

	// Stop: every member gone, the port free.
	st, err := e.sup.Stop(ctx, "web")
	if err != nil || len(st.Members) != live {
		t.Fatalf("stop = %+v, %v; want %d members ended", st, err, live)
	}
	wantGone(t, tree3, "the stopped tree")
	if portAnswers(addr) {
		t.Fatalf("port %s still answers after stop", addr)
	}
}

// waitServing waits for an ok/started cycle begun after since whose
// instance serves with live processes, and returns its tree.
func waitServing(t *testing.T, e *testEnv, addr string, live int, since time.Time) proc.Tree {
	t.Helper()
	var tree proc.Tree
	testutil.WaitFor(t, 20*time.Second, fmt.Sprintf("a started instance with %d processes", live), func() bool {
		if latestStarted(e, "web", since) == nil || !testutil.Healthy(addr) {
			return false
		}
		inst, err := proc.ReadInstance(e.sup.Paths.Pid("web"))
		if err != nil {
			return false
		}
		tree, err = proc.Members(inst)
		return err == nil && tree.Len() == live
	})
	return tree
}

func server(t *testing.T, tree proc.Tree) proc.Member {
	t.Helper()
	want, _ := filepath.EvalSymlinks(testsvcBin)
	for _, m := range tree.Members {
		if m.Exe == want || m.Exe == testsvcBin {
			return m
		}
	}
	t.Fatalf("no testsvc in %+v", tree)
	return proc.Member{}
}

func wantGone(t *testing.T, tree proc.Tree, what string) {
	t.Helper()
	for _, m := range tree.Members {
		if ok, _ := proc.Match(m.Identity); ok {
			t.Errorf("%s: pid %d (%s) still runs", what, m.PID, m.Exe)
		}
	}
}

func holder(t *testing.T, addr string) *proc.Holder {
	t.Helper()
	_, port, _ := strings.Cut(addr, ":")
	var n uint32
	fmt.Sscan(port, &n)
	h, err := proc.PortHolder(context.Background(), n)
	if err != nil || h == nil {
		t.Fatalf("PortHolder(%d) = %+v, %v", n, h, err)
	}
	return h
}

func portAnswers(addr string) bool {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
	}
	return err == nil
}

// testCgroup makes a cgroup v2 directory to stand for the agent's delegated
// one, or skips where none can be made (not root, no cgroup v2).
func testCgroup(t *testing.T) string { return testenv.CgroupParent(t, "agent") }
