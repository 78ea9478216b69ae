package runtrace

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

const crashChildEnv = "RUNTRACE_TEST_CRASH_DB"

// crashChild is the process the crash test kills: it begins one long run,
// then writes short runs in a loop, printing each id once its Finish has
// committed, until it is killed mid-write.
func crashChild(path string, out io.Writer) {
	s, err := Open(path, Options{Logger: quietLogger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	long, err := s.Begin(ctxb, "job:long", TriggerSchedule, time.Now(), time.Now())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintln(out, "long", long)
	for i := 0; ; i++ {
		id, err := s.Begin(ctxb, "job:busy", TriggerSchedule, t0.Add(time.Duration(i)*time.Minute), time.Now())
		if err == nil {
			err = s.Finish(ctxb, id, OutcomeOK, ReasonCompleted, map[string]int{"i": i}, time.Now())
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintln(out, "done", id)
		// A lazy commit (no fsync) survives the process's death too: it
		// is in the WAL in the OS's page cache.
		if id, err = s.RecordLazy(ctxb, Run{JobID: "watchdog:web", Trigger: TriggerSchedule, StartedAt: time.Now(),
			Outcome: OutcomeOK, Reason: ReasonAlreadyRunning}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintln(out, "done", id)
	}
}

func TestCrashMidRunThenReap(t *testing.T) {
	path := dbPath(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	}()

	r := bufio.NewReader(stdout)
	deadline := time.Now().Add(60 * time.Second)
	var long int64
	var done []int64
	for len(done) < 40 {
		line := readLineBefore(t, r, deadline)
		if line == "" {
			t.Fatalf("child ended early: %s", stderr.String())
		}
		collect(t, line, &long, &done)
	}
	// Killed while it writes: no chance to finish, close or checkpoint.
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	killed = true
	rest, _ := io.ReadAll(r) // ids committed after we stopped reading
	cmd.Wait()
	for _, line := range strings.SplitAfter(string(rest), "\n") {
		if line != "" {
			collect(t, line, &long, &done)
		}
	}

	s := openT(t, path)
	if err := s.IntegrityCheck(ctxb); err != nil {
		t.Fatalf("after SIGKILL: %v", err)
	}
	for _, id := range done {
		if r := getRun(t, s, id); r.Outcome != OutcomeOK {
			t.Fatalf("committed run %d lost or changed: %+v", id, r)
		}
	}
	if r := getRun(t, s, long); r.Outcome != OutcomeRunning {
		t.Fatalf("the killed run should still be running before the reaper: %+v", r)
	}
	running, _ := s.Count(ctxb, Filter{Outcome: OutcomeRunning})
	n, err := s.Reap(ctxb, ReapPolicy{Now: time.Now().Add(2 * MinReapAge)})
	if err != nil || n != running || n < 1 {
		t.Fatalf("Reap = %d, %v; want the %d running rows", n, err, running)
	}
	if r := getRun(t, s, long); r.Outcome != OutcomeFailed || r.Reason != ReasonAbandoned {
		t.Fatalf("killed run after Reap: %+v", r)
	}
	if left, _ := s.Count(ctxb, Filter{Outcome: OutcomeRunning}); left != 0 {
		t.Fatalf("%d rows still running", left)
	}
	if err := s.IntegrityCheck(ctxb); err != nil {
		t.Fatal(err)
	}
}

func collect(t *testing.T, line string, long *int64, done *[]int64) {
	t.Helper()
	kind, num, ok := strings.Cut(strings.TrimSpace(line), " ")
	id, err := strconv.ParseInt(num, 10, 64)
	if !ok || err != nil {
		t.Fatalf("unexpected child output %q", line)
	}
	if kind == "long" {
		*long = id
	} else {
		*done = append(*done, id)
	}
}
