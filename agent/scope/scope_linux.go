package scope

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/godbus/dbus/v5"

	"svcctl/proc"
)

// A transient scope for an agent started by hand where a systemd manager is
// reachable (a desktop session, a server with systemd) but the agent is not
// in a delegated cgroup: the agent asks the manager (the system bus as root,
// else the user's) to move the agent itself into a new scope with
// Delegate=yes, and then uses that cgroup exactly as under the installed
// unit. The agent moves itself, not its children: a scope is made of pids
// that already exist, so a child moved after its fork could fork and escape
// first; a child spawned afterwards is born into a cgroup of its own under
// the scope (clone3 CLONE_INTO_CGROUP).

const (
	// ManagerName and ManagerPath are where the systemd manager answers on
	// its bus (a test's fake manager exports itself there).
	ManagerName  = "org.freedesktop.systemd1"
	ManagerPath  = dbus.ObjectPath("/org/freedesktop/systemd1")
	systemdStart = "org.freedesktop.systemd1.Manager.StartTransientUnit"
	// scopeWait bounds the wait for the manager's move, seen in
	// /proc/self/cgroup.
	scopeWait = 5 * time.Second
)

// scopeBus is the address of the bus whose systemd manager is asked: the
// system bus as root, else the user's session bus. "" = none.
var scopeBus = func() string {
	if os.Geteuid() == 0 {
		if a := os.Getenv("DBUS_SYSTEM_BUS_ADDRESS"); a != "" {
			return a
		}
		return "unix:path=/run/dbus/system_bus_socket"
	}
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" {
		return a
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return "unix:path=" + filepath.Join(d, "bus")
	}
	return ""
}

// Prop is one (sv) of StartTransientUnit's properties.
type Prop struct {
	Name  string
	Value dbus.Variant
}

// Aux is one (sa(sv)) of StartTransientUnit's auxiliary units (none).
type Aux struct {
	Name  string
	Props []Prop
}

// MoveSelf asks the manager for a transient scope with Delegate=yes
// holding this process, and returns the delegated cgroup it is in then.
func MoveSelf(ctx context.Context) (string, error) {
	addr := scopeBus()
	if addr == "" {
		return "", fmt.Errorf("no bus to reach a systemd manager on")
	}
	ctx, cancel := context.WithTimeout(ctx, scopeWait)
	defer cancel()
	conn, err := dbus.Connect(addr, dbus.WithContext(ctx))
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", addr, err)
	}
	defer conn.Close()
	name := fmt.Sprintf("svc-ctl-agent-%d.scope", os.Getpid())
	props := []Prop{
		{"Description", dbus.MakeVariant("svc-ctl agent started by hand (its services' cgroups)")},
		{"PIDs", dbus.MakeVariant([]uint32{uint32(os.Getpid())})},
		{"Delegate", dbus.MakeVariant(true)},
	}
	var job dbus.ObjectPath
	if err := conn.Object(ManagerName, ManagerPath).CallWithContext(ctx, systemdStart, 0, name, "fail", props, []Aux{}).Store(&job); err != nil {
		return "", fmt.Errorf("StartTransientUnit %s: %w", name, err)
	}
	for {
		if dir, ok, _ := proc.DelegatedCgroup(); ok {
			return dir, nil
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("scope %s (job %s): not delegated to this process within %s", name, job, scopeWait)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
