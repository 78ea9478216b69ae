package proc

import (
	"context"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// The leader starts a child (the "group" helper: an ordinary child, no
// breakaway): the instance's job holds both, and StopTree ends both.
func TestJobOwnsTree(t *testing.T) {
	s := helperSpec(t, "group", "ignore-term")
	s.Name = "web"
	c := spawnT(t, s)
	if !jobName(c.Job) {
		t.Fatalf("Job = %q (notes %v), want an instance job name", c.Job, c.Notes)
	}
	child := childPID(t, waitLog(t, s.LogPath, "child="))
	var tr Tree
	testutil.WaitFor(t, 20*time.Second, "the child to join the tree", func() bool {
		var err error
		tr, err = Members(c.Instance)
		return err == nil && tr.Has(child)
	})
	// A console child of a detached leader gets a conhost.exe of its own,
	// in the job too: at least the leader and its child.
	if !tr.LeaderAlive() || strings.Join(tr.Via, ",") != "job" || tr.Len() < 2 {
		t.Fatalf("tree %+v: want the leader and its child, via the job", tr)
	}
	res, err := StopTree(context.Background(), c.Instance, 5*time.Second)
	if err != nil || len(res.Members) < 2 {
		t.Fatalf("StopTree = %s %+v, %v", res, res.Members, err)
	}
	for _, m := range res.Members {
		if m.Ended != "TerminateProcess" {
			t.Errorf("member %+v: want ended by TerminateProcess", m)
		}
	}
	testutil.WaitFor(t, 20*time.Second, "the tree to end", func() bool { return !Alive(child) && !Alive(c.PID) })
	<-c.Done
	if got := c.Exit(); got != "exited with code 1" {
		t.Fatalf("Exit() = %q, want exited with code 1 (terminated)", got)
	}
}

// Without a job to open (its name lost with its last handle), the tree is
// the leader's descendants by parent links.
func TestDescendantsWithoutJob(t *testing.T) {
	s := helperSpec(t, "group", "ignore-term")
	c := spawnT(t, s)
	child := childPID(t, waitLog(t, s.LogPath, "child="))
	noJob := c.Instance
	noJob.Job = ""
	tr, err := Members(noJob)
	if err != nil || !tr.Has(child) || strings.Join(tr.Via, ",") != "descendants" {
		t.Fatalf("Members without the job = %+v, %v; want the child via descendants", tr, err)
	}
	bad := c.Instance
	bad.Job = `Global\not-ours`
	if _, ok := jobMembers(bad.Job); ok {
		t.Fatal("a job name svc-ctl does not make was opened")
	}
}
