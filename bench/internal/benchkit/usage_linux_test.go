package benchkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"svcctl/proc"
)

// burn spins until this process has used d more CPU.
func burn(t *testing.T, d time.Duration) {
	t.Helper()
	start, err := SelfCPU()
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	x := 0
	for {
		for i := range 1_000_000 {
			x += i
		}
		now, _ := SelfCPU()
		if now-start >= d {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("could not burn %s of CPU in 30s", d)
		}
	}
	_ = x
}

func TestCPUOfFollowsRusage(t *testing.T) {
	before, err := CPUOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	burn(t, 100*time.Millisecond)
	after, err := CPUOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// /proc counts in 10 ms ticks; 100 ms burnt must show as at least 50.
	if after-before < 50*time.Millisecond {
		t.Fatalf("CPUOf grew by %s after burning 100ms", after-before)
	}
}

func TestMemOfAndMappingsAgree(t *testing.T) {
	m, err := MemOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.Anon+m.File+m.Shmem != m.RSS || m.HWM < m.RSS {
		t.Fatalf("MemOf = %+v: RSS must be RssAnon+RssFile+RssShmem, HWM at least RSS", m)
	}
	ms, err := MappingsOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, x := range ms {
		sum += x.RSS
	}
	// The two files are read a moment apart: allow a little growth.
	if sum < m.RSS/2 || sum > 2*m.RSS {
		t.Fatalf("mappings sum to %d bytes, VmRSS is %d", sum, m.RSS)
	}
}

// TestKillRecordedChecksIdentity: a pid file whose create time does not
// match the live process is never acted on; a matching one is killed.
func TestKillRecordedChecksIdentity(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep program: %v", err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	id, err := proc.IdentityOf(int32(cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	pidFile := filepath.Join(state, "services", "web", "pid")
	if err := os.MkdirAll(filepath.Dir(pidFile), 0o700); err != nil {
		t.Fatal(err)
	}
	wrong := id
	wrong.CreateTime -= 3_600_000
	wrong.Start -= 360_000 // another start stamp: another process
	if err := proc.WritePidFile(pidFile, wrong); err != nil {
		t.Fatal(err)
	}
	KillRecorded(state)
	select {
	case <-done:
		t.Fatal("a process whose identity did not match was killed")
	case <-time.After(200 * time.Millisecond):
	}
	if err := proc.WritePidFile(pidFile, id); err != nil {
		t.Fatal(err)
	}
	KillRecorded(state)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the recorded instance was not killed")
	}
}
