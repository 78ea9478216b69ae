//go:build linux || darwin

package proc

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// stopCmd is a stop_command of argv, with env.
func stopCmd(env map[string]string, argv ...string) *StopCommand {
	return &StopCommand{Argv: argv, Env: env, Name: "web"}
}

// The stop_command runs first, with the service's environment, and what it
// ends ended by it: no signal was needed; its exit is recorded.
func TestStopCommandRunsFirst(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	saw := filepath.Join(t.TempDir(), "saw")
	cmd := stopCmd(map[string]string{"DB_PID": strconv.Itoa(int(c.PID)), "SAW": saw},
		"/bin/sh", "-c", `echo "asked $DB_PID" > "$SAW"; kill -INT "$DB_PID"; echo bye`)
	res, err := StopWith(context.Background(), c.Instance, StopOptions{Timeout: 10 * time.Second, Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if res.Command == nil || res.Command.ExitCode == nil || *res.Command.ExitCode != 0 || !strings.Contains(res.Command.Output, "bye") {
		t.Fatalf("stop_command end = %+v; want exit 0 with its output", res.Command)
	}
	if len(res.Members) != 1 || res.Members[0].Ended != endCommand {
		t.Fatalf("members %+v; want the server ended by the stop_command", res.Members)
	}
	if b, _ := os.ReadFile(saw); strings.TrimSpace(string(b)) != "asked "+strconv.Itoa(int(c.PID)) {
		t.Fatalf("the stop_command did not get the service's environment: %q", b)
	}
	if !strings.Contains(res.String(), "stop_command exited with code 0") {
		t.Fatalf("result %q does not say how the stop_command ended", res)
	}
}

// A stop_command that hangs is killed at half the stop timeout, with what
// it left behind; the members are then stopped by the signal.
func TestStopCommandHasItsOwnTimeoutAndItsTreeIsStopped(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	left := filepath.Join(t.TempDir(), "left")
	cmd := stopCmd(map[string]string{"LEFT": left}, "/bin/sh", "-c", `sleep 300 & echo $! > "$LEFT"; wait`)
	res, err := StopWith(context.Background(), c.Instance, StopOptions{Timeout: 2 * time.Second, Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if res.Command == nil || res.Command.ExitCode != nil || !strings.Contains(res.Command.Exit, "timeout") {
		t.Fatalf("stop_command end = %+v; want killed at its timeout", res.Command)
	}
	if len(res.Members) != 1 || res.Members[0].Ended != "SIGTERM" {
		t.Fatalf("members %+v; want the server ended on SIGTERM after the stop_command", res.Members)
	}
	b, err := os.ReadFile(left)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	testutil.WaitFor(t, 5*time.Second, "the stop_command's own child gone", func() bool { return !Alive(int32(pid)) })
}

// With no member alive, the stop_command is not run.
func TestStopCommandSkippedWhenNothingRuns(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{sleepPath(t), "300"}})
	if _, err := Stop(context.Background(), c.Identity, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	<-c.Done
	ran := filepath.Join(t.TempDir(), "ran")
	res, err := StopWith(context.Background(), c.Instance, StopOptions{Timeout: 5 * time.Second,
		Command: stopCmd(map[string]string{"RAN": ran}, "/bin/sh", "-c", `echo ran > "$RAN"`)})
	if err != nil || !res.AlreadyGone || res.Command != nil {
		t.Fatalf("StopWith of an ended instance = %+v, %v; want already gone, no stop_command", res, err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the stop_command ran with no member alive")
	}
}

// kill_mode "main": the stop signal goes to the main process alone; the
// other members are not signalled one by one, and whoever is left at the
// timeout gets SIGKILL.
func TestStopMainSignalsTheMainProcessOnly(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{"/bin/sh", "-c", "sleep 300 & wait"}})
	testutil.WaitFor(t, 10*time.Second, "the shell's child", func() bool {
		tr, _ := Members(c.Instance)
		return tr.Len() == 2
	})
	res, err := StopWith(context.Background(), c.Instance, StopOptions{Timeout: 500 * time.Millisecond, Signal: "SIGTERM", Main: true})
	if err != nil || res.KillMode != "main" {
		t.Fatalf("StopWith = %+v, %v", res, err)
	}
	for _, m := range res.Members {
		want := "SIGKILL" // the shell's child: left at the timeout
		if m.Leader {
			want = "SIGTERM"
		}
		if m.Ended != want {
			t.Errorf("pid %d (leader %v) ended %q, want %s", m.PID, m.Leader, m.Ended, want)
		}
	}
	if len(res.Members) != 2 {
		t.Fatalf("members %+v; want the shell and its child", res.Members)
	}
}

// A stop command that only asks (nginx -s quit, kill -INT) returns before
// the service has ended: the service gets the rest of the command's half of
// the stop timeout to end by it, and no SIGTERM cuts its graceful stop short
// (it was sent at once: the CI run saw the server "ended by SIGTERM").
func TestStopCommandThatOnlyAsksIsWaitedFor(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.log")
	c := spawnT(t, SpawnSpec{LogPath: out, Argv: []string{"/bin/sh", "-c", `trap 'sleep 0.4; exit 0' INT; echo up; while :; do sleep 0.05; done`}})
	testutil.WaitFor(t, 5*time.Second, "the server's trap in place", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "up")
	})
	cmd := stopCmd(map[string]string{"DB_PID": strconv.Itoa(int(c.PID))}, "/bin/sh", "-c", `kill -INT "$DB_PID"`)
	res, err := StopWith(context.Background(), c.Instance, StopOptions{Timeout: 10 * time.Second, Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Members) == 0 || res.Members[0].Ended != endCommand {
		t.Fatalf("members %+v; want the server ended by the stop_command, given time to", res.Members)
	}
}
