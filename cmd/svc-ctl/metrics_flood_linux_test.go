//go:build linux

package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"svcctl/internal/testutil"
	"svcctl/runtrace"
)

// An idle-connection flood on metrics_listen must not starve supervision of
// descriptors: the agent runs with a limit of 256, the flood opens 600 idle
// connections, and still a killed service is restored and the job runs.
// Without the connection cap the agent accepts until "too many open files"
// and every spawn fails.
func TestMetricsFloodLeavesDescriptorsForSupervision(t *testing.T) {
	addr, maddr := testutil.FreeAddr(t), testutil.FreeAddr(t)
	cfg, state := writeConfig(t, `metrics_listen = "`+maddr+`"`, webService("web", addr, "1s")+`
[[job]]
name = "tick"
schedule = "@every 1s"
timezone = "UTC"
command = ["/bin/true"]
`)
	cmd, errb := startAgentProcess(t, cfg)
	lim := unix.Rlimit{Cur: 256, Max: 256}
	if err := unix.Prlimit(cmd.Process.Pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, state)
	agentLog := filepath.Join(state, "agent.log")
	testutil.WaitFor(t, 20*time.Second, "metrics listening, capped at 256/8", func() bool {
		b, _ := os.ReadFile(agentLog)
		return strings.Contains(string(b), `"msg":"metrics.listening"`) && strings.Contains(string(b), `"max_conns":32`)
	})
	testutil.WaitFor(t, 20*time.Second, "web started", func() bool {
		n, _ := st.Count(context.Background(), runtrace.Filter{JobID: "watchdog:web", Reason: runtrace.ReasonStarted})
		return n == 1 && testutil.Healthy(addr)
	})

	var flood []net.Conn
	t.Cleanup(func() {
		for _, c := range flood {
			c.Close()
		}
	})
	for range 600 {
		c, err := net.DialTimeout("tcp", maddr, 2*time.Second)
		if err != nil {
			t.Fatalf("flood connection %d: %v", len(flood), err)
		}
		flood = append(flood, c)
	}
	testutil.WaitFor(t, 10*time.Second, "the agent holding its cap of connections", func() bool {
		return socketsOf(cmd.Process.Pid) >= 32
	})
	floodAt := time.Now()

	old := readPID(t, state, "web")
	syscall.Kill(old, syscall.SIGKILL)
	testutil.WaitFor(t, 30*time.Second, "the killed service restored under the flood", func() bool {
		rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "watchdog:web", Reason: runtrace.ReasonStarted, Since: floodAt})
		return len(rs) > 0 && testutil.Healthy(addr)
	})
	testutil.WaitFor(t, 30*time.Second, "a job run completed under the flood", func() bool {
		rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: "job:tick", Reason: runtrace.ReasonCompleted, Since: floodAt})
		return len(rs) > 0
	})
	if n, _ := st.Count(context.Background(), runtrace.Filter{Reason: runtrace.ReasonSpawnError}); n != 0 {
		b, _ := os.ReadFile(agentLog)
		t.Fatalf("%d spawn errors under the flood\n%s\n%s", n, errb, b)
	}
	if n := socketsOf(cmd.Process.Pid); n > 32+16 {
		t.Fatalf("the agent holds %d sockets, past its cap of 32 metrics connections", n)
	}
}

// socketsOf counts the sockets among pid's open descriptors.
func socketsOf(pid int) int {
	fds, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "fd", "*"))
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}
