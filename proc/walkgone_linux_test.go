package proc

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// A Walk reads the stat of a new PID only while a process holds it: on a
// host building code most PIDs of the window are gone by the next Walk, and
// failing to open each one's stat was the larger part of an idle agent's
// CPU there. A process that ran and was reaped between two Walks is asked
// about (kill 0), never read; the member test above shows a live one is.
func TestWalkSkipsPIDsGoneSince(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{"/bin/sh", "-c", "sleep 300"}})
	var read []int32
	walk := func(second bool) {
		l := &looker{inst: c.Instance, boot: currentBoot(), members: map[int32]*seen{}, depth: Walk}
		r := newProcReader()
		l.readOne = func(pid int32) (procInfo, error) {
			read = append(read, pid)
			return r(pid)
		}
		l.lastWalkPIDs()
		l.seeds()
		read = nil
		if ok := l.sinceLastWalk(); second && !ok {
			t.Fatal("the window was not read: the test needs a Walk of new PIDs")
		}
	}
	walk(false) // the instance's first Walk: the window starts here
	gone := exec.Command("true")
	if err := gone.Run(); err != nil { // started and reaped: its PID is free again
		t.Fatal(err)
	}
	pid := int32(gone.ProcessState.Pid())
	walk(true)
	for _, p := range read {
		if p == pid {
			t.Fatalf("the Walk read the stat of pid %d, which had exited and been reaped (read %v)", pid, read)
		}
	}
}

// Thread IDs come from the same space as PIDs: a Walk reads no thread that
// is not its process's leader (threads are never members, and a build's
// processes start many). This process starts threads inside the window.
func TestWalkSkipsThreads(t *testing.T) {
	c := spawnT(t, SpawnSpec{Argv: []string{"/bin/sh", "-c", "sleep 300"}})
	var read []int32
	l := &looker{inst: c.Instance, boot: currentBoot(), members: map[int32]*seen{}, depth: Walk, readOne: newProcReader()}
	l.lastWalkPIDs() // the instance's first Walk: the window starts here
	// Goroutines that keep their threads make the runtime start others.
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	for range 4 {
		go func() {
			runtime.LockOSThread()
			started <- struct{}{}
			<-release
		}()
	}
	for range 4 {
		<-started
	}
	l = &looker{inst: c.Instance, boot: currentBoot(), members: map[int32]*seen{}, depth: Walk}
	r := newProcReader()
	l.readOne = func(pid int32) (procInfo, error) {
		read = append(read, pid)
		return r(pid)
	}
	l.lastWalkPIDs()
	l.seeds()
	if !l.sinceLastWalk() {
		t.Fatal("the window was not read: the test needs a Walk of new PIDs")
	}
	self := int32(os.Getpid())
	var inWindow []int32
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tasks {
		tid, _ := strconv.Atoi(e.Name())
		if int32(tid) != self && int32(tid) > l.pidPrev && int32(tid) <= l.pidNow {
			inWindow = append(inWindow, int32(tid))
		}
	}
	if len(inWindow) == 0 {
		t.Skip("the runtime started no thread inside the window (it had idle ones): nothing to show")
	}
	for _, p := range read {
		if slices.Contains(inWindow, p) {
			t.Fatalf("the Walk read the stat of thread %d of this process (threads in the window %v, read %v)", p, inWindow, read)
		}
	}
}
