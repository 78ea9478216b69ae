package install

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The test binary doubles as a stand-in for svc-ctl in tests that run real
// processes: SVCCTL_INSTALL_HELPER selects what it does.
//
//	start  write $SVCCTL_HELPER_STATE/watchdog.last.json and exit 0 (`svc-ctl start --all`)
//	agent  write $SVCCTL_HELPER_STATE/agent.started, run until SIGTERM, then exit 0 (`svc-ctl agent`)
func TestMain(m *testing.M) {
	switch os.Getenv("SVCCTL_INSTALL_HELPER") {
	case "start":
		os.Exit(helperStart())
	case "agent":
		os.Exit(helperAgent())
	}
	os.Exit(m.Run())
}

func helperStart() int {
	p := filepath.Join(os.Getenv("SVCCTL_HELPER_STATE"), watchdogLast)
	if err := os.WriteFile(p, lastJSON(time.Now(), "demo", "demo2"), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func helperAgent() int {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM)
	p := filepath.Join(os.Getenv("SVCCTL_HELPER_STATE"), "agent.started")
	if err := os.WriteFile(p, []byte(fmt.Sprint(os.Getpid())), 0o600); err != nil {
		return 1
	}
	select {
	case <-ch:
		return 0
	case <-time.After(2 * time.Minute): // never outlive a failed test for long
		return 1
	}
}
