package probe

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"svcctl/internal/testutil"

	"golang.org/x/sys/windows"
)

// How Go words a command that cannot be started on Windows: a missing
// path is tried with each PATHEXT extension and reported like a PATH miss.
const (
	noSuchFile = "executable file not found in %PATH%"
	notOnPath  = "executable file not found in %PATH%"
)

// The check's job object ends what the command left running when the
// command exits.
func TestExecJobEndsChildren(t *testing.T) {
	dir, err := os.MkdirTemp("", "probe-test-") // not t.TempDir: Wine cannot always remove it
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	pidFile := filepath.Join(dir, "child.pid")
	r := run(Spec{Kind: KindExec, Argv: []string{os.Args[0]}, Timeout: 20 * time.Second,
		Env: map[string]string{helperEnv: "leave-child", "PROBE_PIDFILE": pidFile}})
	wantHealthy(t, r)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	testutil.WaitFor(t, 10*time.Second, "the child "+string(b)+" to end with the check", func() bool { return !running(uint32(pid)) })

	// Control: run the same command outside a check; its child lives on.
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"=leave-child", "PROBE_PIDFILE="+pidFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("control run: %v: %s", err, out)
	}
	b, err = os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ = strconv.Atoi(string(b))
	if !running(uint32(pid)) {
		t.Fatalf("control: child %d is not running outside a check: running() cannot tell", pid)
	}
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}

func running(pid uint32) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
