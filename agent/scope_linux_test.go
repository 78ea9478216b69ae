package agent

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"golang.org/x/sys/unix"

	"svcctl/agent/scope"
	"svcctl/config"
	"svcctl/internal/testenv"
	"svcctl/internal/testkit"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// fakeSystemd is org.freedesktop.systemd1's Manager as far as a transient
// scope goes: StartTransientUnit makes a cgroup under parent (standing for
// systemd's), moves the PIDs into it and marks it delegated, as systemd
// does for Delegate=yes.
type fakeSystemd struct {
	parent string
	mu     sync.Mutex
	asked  []string // name, then each property's name
	dir    string
}

func (f *fakeSystemd) StartTransientUnit(name, mode string, props []scope.Prop, aux []scope.Aux) (dbus.ObjectPath, *dbus.Error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, name, mode)
	var pids []uint32
	delegate := false
	for _, p := range props {
		f.asked = append(f.asked, p.Name)
		switch p.Name {
		case "PIDs":
			pids, _ = p.Value.Value().([]uint32)
		case "Delegate":
			delegate, _ = p.Value.Value().(bool)
		}
	}
	dir := filepath.Join(f.parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", dbus.MakeFailedError(err)
	}
	for _, pid := range pids {
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(int(pid))), 0); err != nil {
			return "", dbus.MakeFailedError(err)
		}
	}
	if delegate {
		if err := unix.Setxattr(dir, "trusted.delegate", []byte("1"), 0); err != nil {
			return "", dbus.MakeFailedError(err)
		}
	}
	f.dir = dir
	return dbus.ObjectPath("/org/freedesktop/systemd1/job/1"), nil
}

// An agent started by hand, with a systemd manager on its bus and no
// delegated cgroup, asks for a transient scope with Delegate=yes around
// itself, and owns its services as under the installed unit: each instance
// in a cgroup of its own under the scope (mode "scope"), so a daemon that
// clears its environment and leaves the tree is still owned.
func TestAgentMovesItselfIntoAScope(t *testing.T) {
	parent := testenv.CgroupParent(t, "scope")
	addr := testkit.DBus(t) // standing for the system bus
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fake := &fakeSystemd{parent: parent}
	if err := conn.Export(fake, scope.ManagerPath, "org.freedesktop.systemd1.Manager"); err != nil {
		t.Fatal(err)
	}
	if r, err := conn.RequestName(scope.ManagerName, dbus.NameFlagDoNotQueue); err != nil || r != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName = %v, %v", r, err)
	}
	svcAddr := testutil.FreeAddr(t)
	path, _ := testutil.WriteConfig(t, `drain_timeout = "3s"`, testutil.Service{Name: "web", Addr: svcAddr, Interval: "1s",
		Command: []string{testsvcBin, "--launch", "at-once-noenv", "--", "--addr", svcAddr}}.TOML(testsvcBin))
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	store := testenv.Ledger(t, cfg)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envTestAgent+"="+path, envTestAgentMode+"=scope", "DBUS_SYSTEM_BUS_ADDRESS="+addr)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testutil.WaitFor(t, 20*time.Second, "a start by the agent in its scope", func() bool {
		rs, _ := store.Runs(context.Background(), runtrace.Filter{JobID: runtrace.WatchdogID("web"), Reason: runtrace.ReasonStarted, Limit: 1})
		return len(rs) == 1 && testutil.Healthy(svcAddr)
	})
	fake.mu.Lock()
	asked, dir := strings.Join(fake.asked, " "), fake.dir
	fake.mu.Unlock()
	if want := "svc-ctl-agent-" + strconv.Itoa(cmd.Process.Pid) + ".scope fail Description PIDs Delegate"; asked != want {
		t.Fatalf("the manager was asked %q, want %q", asked, want)
	}
	inst, err := proc.ReadInstance(state.PathsOf(cfg).Pid("web"))
	if err != nil || inst.Mode != proc.ModeScope || filepath.Dir(inst.Cgroup) != dir {
		t.Fatalf("record %+v, %v: want mode scope, a cgroup under %s", inst, err, dir)
	}
	tr, err := proc.Members(inst)
	if err != nil || tr.Len() != 1 || tr.LeaderAlive() || !slices.Contains(tr.Via, "cgroup") {
		t.Fatalf("members %+v, %v: want the daemon (no marker, left its tree) in the instance's cgroup", tr, err)
	}
	noCgroup := inst
	noCgroup.Cgroup, noCgroup.Main, noCgroup.Remembered = "", nil, nil
	if tr, _ := proc.Members(noCgroup); tr.Len() != 0 {
		t.Fatalf("without the cgroup the daemon is still proven (%+v): the test proves nothing", tr)
	}
}
