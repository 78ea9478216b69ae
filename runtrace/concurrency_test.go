package runtrace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// buildRTLoad compiles the load generator without -race, so 8 writer
// processes stay quick while this test binary may run under the race detector
// (under Wine, where there is no go command, the harness prebuilt it).
func buildRTLoad(t *testing.T) string {
	t.Helper()
	bin, err := testutil.GoBuild(t.TempDir(), "./runtrace/internal/rtload")
	if err != nil {
		t.Fatalf("build rtload: %v", err)
	}
	return bin
}

// Eight processes write 500 runs each into one new file at the same time:
// they race to create and migrate it, then contend for the write lock.
// Every row must land and no process may see an error.
func TestConcurrentProcesses(t *testing.T) {
	const procs, runs = 8, 500
	bin := buildRTLoad(t)
	start := time.Now()
	defer func() { t.Logf("writers took %s", time.Since(start)) }()
	path := dbPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*strings.Builder, procs)
	for i := range cmds {
		outs[i] = &strings.Builder{}
		cmds[i] = exec.Command(bin, "-db", path, "-job", fmt.Sprintf("job:load-%d", i), "-runs", fmt.Sprint(runs))
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer %d: %v: %s", i, err, outs[i])
		}
	}
	if t.Failed() {
		return
	}
	s := openT(t, path)
	if n, err := s.Count(ctxb, Filter{}); err != nil || n != procs*runs {
		t.Fatalf("rows = %d, %v; want %d", n, err, procs*runs)
	}
	if n, _ := s.Count(ctxb, Filter{Outcome: OutcomeRunning}); n != 0 {
		t.Fatalf("%d runs left running", n)
	}
	for i := range procs {
		job := fmt.Sprintf("job:load-%d", i)
		slots, err := s.ScheduledSlots(ctxb, job, t0.AddDate(-1, 0, 0), t0.AddDate(1, 0, 0))
		if err != nil || len(slots) != runs {
			t.Errorf("%s: %d distinct slots, %v; want %d", job, len(slots), err, runs)
		}
	}
	if err := s.IntegrityCheck(ctxb); err != nil {
		t.Fatal(err)
	}
}
