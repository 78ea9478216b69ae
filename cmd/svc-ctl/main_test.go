package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
	"svcctl/proc"
	"svcctl/runtrace"
)

var (
	svcctlBin  string
	testsvcBin string
)

// TestMain builds the real svc-ctl binary: these tests drive it as a person
// and the OS would, with real processes and real signals.
// quiet drops the ledger's own events (runtrace.migrated): they are not
// the test's output, and under the Windows harness a stray line beside a
// tolerated failure is an unexplained one.
var quiet = slog.New(slog.DiscardHandler)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "svcctl-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if svcctlBin, err = testutil.GoBuild(dir, "./cmd/svc-ctl"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if testsvcBin, err = testsvc.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func svcctl(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(svcctlBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run svc-ctl %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// writeConfig writes a config with a state dir under t.TempDir() and returns
// its path and the state dir. body is appended after [agent].
func writeConfig(t *testing.T, agentExtra, body string) (cfgPath, state string) {
	t.Helper()
	cfgPath, state = testutil.WriteConfig(t, agentExtra, body)
	t.Cleanup(func() {
		stopAll(state)
		noLeakedServices(t, body)
	})
	return cfgPath, state
}

// waitRecorded waits until service name's instance is in its pid file.
// A test that SIGKILLs its agent waits for this first: killed between the
// spawn and that write, the agent leaves a process no record names (what the
// next agent cannot stop either; noLeakedServices then fails the test).
func waitRecorded(t *testing.T, state, name string) {
	t.Helper()
	testutil.WaitFor(t, 20*time.Second, name+"'s instance recorded", func() bool {
		_, err := proc.ReadPidFile(filepath.Join(state, "services", name, "pid"))
		return err == nil
	})
}

// addrRE is a service's --addr in a test's config.
var addrRE = regexp.MustCompile(`"--addr", "(127\.0\.0\.1:[0-9]+)"`)

// noLeakedServices fails the test when a service of its config still runs
// once the test's agents are gone and stopAll has killed what the pid files
// name: a service nothing records is one a user could not stop either. It
// kills what it finds, by pid, so one leak does not spill into the next test.
func noLeakedServices(t *testing.T, body string) {
	var addrs []string
	for _, m := range addrRE.FindAllStringSubmatch(body, -1) {
		addrs = append(addrs, "--addr "+m[1])
	}
	var left map[int]string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if left = servicesOf(addrs); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for pid, line := range left {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
		t.Errorf("a service of this test still runs after its agents and the pid files' processes were stopped: pid %d: %s", pid, line)
	}
}

// webService is a [[service]] block running testsvc on addr.
func webService(name, addr, interval string, extra ...string) string {
	args := []string{fmt.Sprintf("%q", testsvcBin), `"--addr"`, fmt.Sprintf("%q", addr)}
	for _, e := range extra {
		args = append(args, fmt.Sprintf("%q", e))
	}
	return fmt.Sprintf(`
[[service]]
name = %q
command = [%s]
interval = %q
start_timeout = "5s"
stop_timeout = "2s"
  [service.health]
  http = "http://%s/health"
  timeout = "1s"
  confirm = "0s"
`, name, strings.Join(args, ", "), interval, addr)
}

// stopAll kills every service instance recorded under state, by its pid
// file and only while its identity holds (a reused pid is never killed).
func stopAll(state string) {
	ms, _ := filepath.Glob(filepath.Join(state, "services", "*", "pid"))
	for _, m := range ms {
		if id, err := proc.ReadPidFile(m); err == nil {
			proc.Kill(id)
		}
	}
}

// cliProc is a svc-ctl process a test started and waits for.
type cliProc struct {
	*exec.Cmd
	stdout, stderr *lockedBuf
}

// startCLI starts svc-ctl with args and returns it running; the test waits
// for it (or its cleanup kills it).
func startCLI(t *testing.T, args ...string) *cliProc {
	t.Helper()
	cmd := exec.Command(svcctlBin, args...)
	out, errb := &lockedBuf{}, &lockedBuf{}
	cmd.Stdout, cmd.Stderr = out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return &cliProc{Cmd: cmd, stdout: out, stderr: errb}
}

// runsOf reads the rows of job, newest first, from the ledger under state
// (read-only, as a reader would); none while it does not exist.
func runsOf(t *testing.T, state, job string) []runtrace.Run {
	t.Helper()
	st, err := runtrace.Open(filepath.Join(state, "svc-ctl.db"), runtrace.Options{ReadOnly: true, Logger: quiet})
	if err != nil {
		return nil
	}
	defer st.Close()
	rs, _ := st.Runs(context.Background(), runtrace.Filter{JobID: job, Limit: 50})
	return rs
}

// readIdentity is the recorded instance's leader of service name under
// state, once the pid file names a live instance. The watchdog writes the
// file just after the spawn, so a service can answer its health check
// before the file exists (the first start) or while it still names the
// instance stopped before (a restart): a test that saw the service healthy
// and read the file at once failed 'read pid file: no such file'.
func readIdentity(t *testing.T, state, name string) proc.Identity {
	t.Helper()
	path := filepath.Join(state, "services", name, "pid")
	var id proc.Identity
	var err error
	testutil.WaitForSaying(t, 20*time.Second, name+"'s pid file naming a live instance", func() bool {
		if id, err = proc.ReadPidFile(path); err != nil {
			return false
		}
		var alive bool
		alive, err = proc.Match(id)
		return alive
	}, func() string { return fmt.Sprintf("%+v, %v", id, err) })
	return id
}

func readPIDOf(t *testing.T, state, name string) int { return int(readIdentity(t, state, name).PID) }
