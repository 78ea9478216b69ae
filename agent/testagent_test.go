package agent

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"svcctl/config"
)

const (
	// envTestAgent makes the test binary an agent on the config at this
	// path (TestMain); envTestAgentMode says its mode ("subreaper",
	// "plain", "cgroup:DIR").
	envTestAgent     = "SVCCTL_TEST_AGENT"
	envTestAgentMode = "SVCCTL_TEST_AGENT_MODE"
)

// runTestAgent is an agent process for the matrix: until SIGTERM (a clean
// stop) or SIGKILL.
func runTestAgent(path, mode string) int {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	o := Options{Config: cfg, Version: "matrix", MaxStagger: 50 * time.Millisecond, Cgroup: "-"}
	switch {
	case mode == "plain":
		o.NoSubreaper = true
	case strings.HasPrefix(mode, "cgroup:"):
		o.Cgroup = strings.TrimPrefix(mode, "cgroup:")
	case mode == "scope":
		o.Cgroup, o.Scope = "", true // ask the systemd manager on DBUS_SYSTEM_BUS_ADDRESS
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "agent:", err)
		return 1
	}
	return 0
}
