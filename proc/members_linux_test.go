package proc

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

func shapeNamed(t *testing.T, name string) shape {
	t.Helper()
	for _, sh := range shapes {
		if sh.name == name {
			return sh
		}
	}
	t.Fatalf("no shape %s", name)
	return shape{}
}

// The marker proves a member only when the process runs as the instance's
// user: the same daemon, judged against another uid, is nobody's, and a
// stop signals nothing.
func TestMarkerNeedsTheInstanceUser(t *testing.T) {
	sv := startShape(t, shapeNamed(t, "daemon"), "", "testsvc")
	if tr := settled(t, sv.c.Instance, 1); !tr.Has(sv.pid) || tr.Members[0].Via != "marker" {
		t.Fatalf("tree %+v: want the daemon, proven by its marker", tr)
	}
	other := sv.c.Instance
	uid := *other.UID + 1
	other.UID = &uid
	if tr, err := Members(other); err != nil || tr.Len() != 0 {
		t.Fatalf("Members as uid %d = %+v, %v; want none", uid, tr, err)
	}
	if res, err := StopTree(context.Background(), other, time.Second); err != nil || !res.AlreadyGone {
		t.Fatalf("StopTree as uid %d = %+v, %v; want nothing signalled", uid, res, err)
	}
	wantHealth(t, sv.port)
	// An older record (no uid, no marker) proves nothing by environment.
	older := sv.c.Instance
	older.UID, older.Marker = nil, ""
	if tr, _ := Members(older); tr.Len() != 0 {
		t.Fatalf("Members of an older record = %+v; want none", tr)
	}
}

// A daemon that writes its process title over its environment loses its
// marker: what keeps it a member is having been seen, and remembered with
// its identity, before it did.
func TestRetitledDaemonStaysRemembered(t *testing.T) {
	sv := startShapeArgs(t, shapeNamed(t, "daemon"), "", "testsvc")
	settled(t, sv.c.Instance, 1)
	tr, rec, err := Look(sv.c.Instance, Scan)
	if err != nil || !tr.Has(sv.pid) || len(rec.Remembered) != 1 || rec.Remembered[0].PID != sv.pid || !Changed(sv.c.Instance, rec) {
		t.Fatalf("Look = %+v, %+v, %v; want the daemon remembered", tr, rec.Remembered, err)
	}
	retitle(t, sv)
	if tr, _ := Members(sv.c.Instance); tr.Has(sv.pid) {
		t.Fatalf("the retitled daemon is still found by a marker: %+v", tr)
	}
	for _, d := range []Depth{Walk, Scan} {
		tr, again, err := Look(rec, d)
		if err != nil || !tr.Has(sv.pid) || Changed(rec, again) {
			t.Fatalf("Look(record, %d) = %+v, %v; want the remembered daemon, record unchanged", d, tr, err)
		}
	}
	res, err := StopTree(context.Background(), rec, 5*time.Second)
	if err != nil || len(res.Members) != 1 || res.Members[0].PID != sv.pid {
		t.Fatalf("StopTree(record) = %s %+v, %v", res, res.Members, err)
	}
	if !portFree(sv.port) {
		t.Fatal("port still served after the stop")
	}
}

func retitle(t *testing.T, sv served) {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:" + sv.port + "/control/retitle")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("retitle: %v %v", resp, err)
	}
	resp.Body.Close()
	env, err := environOf(sv.pid)
	if err != nil || hasEntry(env, MarkerEnv+"="+sv.c.Marker) {
		t.Fatalf("environ after retitle still has the marker (err %v)", err)
	}
}

// An older record's `outside` list (a daemon that served the health port
// from outside the tree) is read and remembered as members.
func TestOutsideRecordUpgraded(t *testing.T) {
	sv := startShape(t, shapeNamed(t, "daemon-noenv"), "", "testsvc")
	settled(t, sv.c.Instance, 0)
	id, err := IdentityOf(sv.pid)
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/pid"
	old := sv.c.Instance
	old.Marker, old.UID, old.Mode = "", nil, ""
	old.Outside = []Identity{id}
	if err := WriteInstance(path, old); err != nil {
		t.Fatal(err)
	}
	rd, err := ReadInstance(path)
	if err != nil || len(rd.Outside) != 1 {
		t.Fatalf("ReadInstance = %+v, %v", rd, err)
	}
	tr, rec, err := Look(rd, Walk)
	if err != nil || !tr.Has(sv.pid) || len(rec.Outside) != 0 || len(rec.Remembered) != 1 || rec.Remembered[0].Via != "outside" || !Changed(rd, rec) {
		t.Fatalf("Look = %+v, %+v, %v; want the outside process remembered", tr, rec, err)
	}
	res, err := StopTree(context.Background(), rec, 5*time.Second)
	if err != nil || len(res.Members) != 1 {
		t.Fatalf("StopTree = %s, %v", res, err)
	}
}

// Walk finds a member's descendants without listing every process: the
// wrapper's server, and after the wrapper is gone, the server alone through
// the record.
func TestWalkFindsDescendants(t *testing.T) {
	sv := startShape(t, shapeNamed(t, "wrapper"), "", "testsvc")
	settled(t, sv.c.Instance, 2)
	tr, rec, err := Look(sv.c.Instance, Walk)
	if err != nil || tr.Len() != 2 || !tr.Has(sv.pid) {
		t.Fatalf("Walk = %+v, %v; want the wrapper and its server", tr, err)
	}
	m, _ := tr.Member(sv.pid)
	if m.Via != "descendants" {
		t.Fatalf("server proven by %q, want descendants", m.Via)
	}
	// The wrapper dies (its server lives on, re-parented): the record walks
	// from the server.
	if err := os.NewSyscallError("kill", killPID(sv.c.PID)); err != nil {
		t.Fatal(err)
	}
	<-sv.c.Done
	testutil.WaitFor(t, 10*time.Second, "the server alone", func() bool {
		tr, _, _ := Look(rec, Walk)
		return tr.Len() == 1 && tr.Has(sv.pid) && !tr.LeaderAlive()
	})
	// Walks with no process created since are quiet (a member's PID that
	// still exists is the member: no PID was handed out to reuse it);
	// the server's death is seen all the same.
	Look(rec, Walk)
	if err := killPID(sv.pid); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the tree seen empty by a Walk", func() bool {
		tr, _, _ := Look(rec, Walk)
		return tr.Len() == 0
	})
}

// A SIGSTOPped member is named as stopped.
func TestStoppedMemberNamed(t *testing.T) {
	sv := startShape(t, shapeNamed(t, "shim"), "", "testsvc")
	if err := stopPID(sv.pid); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, 10*time.Second, "the member seen stopped", func() bool {
		tr, _ := Members(sv.c.Instance)
		return len(tr.Stopped()) == 1 && tr.Stopped()[0].PID == sv.pid
	})
	res, err := StopTree(context.Background(), sv.c.Instance, 5*time.Second)
	if err != nil || res.Members[0].Ended != "SIGTERM" {
		t.Fatalf("StopTree of a stopped member = %s %+v, %v; want it ended on SIGTERM (SIGCONT follows the signal)", res, res.Members, err)
	}
}

// A Walk after the first finds a member created since from the PIDs handed
// out since (/proc/loadavg), reading those processes alone; one after more
// PIDs than walkWindow, or with no earlier Walk, walks every member's
// children instead.
func TestWalkReadsOnlyNewPIDs(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "go")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	c := spawnT(t, SpawnSpec{Argv: []string{"/bin/sh", "-c", `read x < "$0"; sleep 300 & wait`, fifo}})
	walk := func() (*looker, bool) {
		l := &looker{inst: c.Instance, boot: currentBoot(), members: map[int32]*seen{}, readOne: newProcReader(), depth: Walk}
		l.lastWalkPIDs()
		l.seeds()
		return l, l.sinceLastWalk()
	}
	if _, ok := walk(); ok {
		t.Fatal("the first Walk of an instance read only new PIDs: it has no earlier one")
	}
	// Nothing created: the window is read (empty) and enough.
	if l, ok := walk(); !ok || len(l.members) != 1 {
		t.Fatalf("a Walk with nothing new: ok %v, %d members", ok, len(l.members))
	}
	if kids, _ := childrenOf(c.PID); len(kids) != 0 {
		t.Fatalf("the leader forked before it was told to: %v", kids)
	}
	// The leader forks: the next Walk finds the child among the new PIDs.
	if err := os.WriteFile(fifo, []byte("go\n"), 0); err != nil {
		t.Fatal(err)
	}
	var kid int32
	testutil.WaitFor(t, 10*time.Second, "the leader's child", func() bool {
		kids, _ := childrenOf(c.PID)
		if len(kids) == 1 {
			kid = kids[0]
		}
		return kid != 0
	})
	l, ok := walk()
	if !ok || l.members[kid] == nil || l.members[kid].via != "descendants" {
		t.Fatalf("a Walk after a fork: ok %v, members %v; want the child %d from the new PIDs", ok, l.members, kid)
	}
	key := walkKey{c.PID, c.Start, c.Boot}
	lastWalk.Store(key, kid-walkWindow-1) // as if more PIDs went by than are worth reading
	if _, ok := walk(); ok {
		t.Fatal("a Walk after more than walkWindow new PIDs read them one by one")
	}
}
