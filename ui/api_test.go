package ui

import (
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"svcctl/runtrace"
)

// TestTimelineAndDetail: after a service was killed and brought back, the
// timeline marks the restart with its cause, a job's slots with no row are
// hollow marks, and the detail of that restart gives the four-way why, the
// snapshot its cycle wrote and both log tails, redacted.
func TestTimelineAndDetail(t *testing.T) {
	pg := newPage(t)
	pg.startAndKill()
	if _, err := pg.store.Register(t.Context(), runtrace.JobID("pull"), pg.cfg.Job("pull").Registration(), time.Now().Add(-5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	var tl Timeline
	pg.getJSON("/api/timeline", &tl)
	if len(tl.Strips) != 3 || tl.Strips[0].Name != "web" || tl.Strips[1].Name != "pull" || tl.Strips[2].Kind != "agent" {
		t.Fatalf("strips = %+v, want web, pull, agent", tl.Strips)
	}
	// A fresh history opens on what there is, not as a sliver at the edge
	// of a day.
	if span := tl.To.Sub(tl.From); tl.Range != "fit" || span < fitMin || span > fitMin+3*time.Second || tl.BucketMS*buckets != span.Milliseconds() {
		t.Errorf("the default timeline: range %q over %v, buckets of %d ms; want fit, about %v for a history of seconds, in whole buckets",
			tl.Range, tl.To.Sub(tl.From), tl.BucketMS, fitMin)
	}
	web := tl.Strips[0]
	var restart *Mark
	for i, m := range web.Marks {
		if m.Restart && m.Trigger == runtrace.TriggerEvent {
			restart = &web.Marks[i]
		}
	}
	if restart == nil || restart.Cause != "exited: killed by SIGKILL" {
		t.Fatalf("web's marks = %+v, want the restart after the kill with its cause", web.Marks)
	}
	// The first start replaced nothing: a start, not a restart (before, it
	// drew a restart mark, so the timeline showed more restarts than the
	// card counted).
	if first := web.Marks[0]; first.Restart || first.Trigger != runtrace.TriggerManual || first.Reason != runtrace.ReasonStarted {
		t.Errorf("first mark = %+v, want the manual start of a service that was not running, not a restart", first)
	}
	if restart.RestartBy != "watchdog" {
		t.Errorf("the kill's restart is by %q, want watchdog", restart.RestartBy)
	}
	var st Page
	pg.getJSON("/api/state", &st)
	if s := st.Services[0]; s.Restarts24h != 1 || s.RequestedRestarts24h != 0 {
		t.Errorf("the card counts %d restarts by the watchdog and %d asked for; the timeline marks 1 restart", s.Restarts24h, s.RequestedRestarts24h)
	}
	if n := len(tl.Strips[1].Missing); n < 3 || n > 6 {
		t.Errorf("pull, registered 5 min ago, every minute, no run: %d missing slots, want 4 or 5", n)
	} else if z := tl.Strips[1].Missing[0].InZone; !strings.HasSuffix(z, "CST") {
		t.Errorf("missing slot in the job's zone = %q, want Asia/Shanghai's CST", z)
	}
	if b := int(restart.At.Sub(tl.From) / time.Duration(tl.BucketMS*1e6)); web.Ran[b] != 1 || sum(web.Ran) < 1 || sum(web.Ran) > 2 {
		t.Errorf("ran = %v: want the restart's bucket (%d), and at most its neighbour", web.Ran, b)
	}

	var d Detail
	pg.getJSON("/api/detail?name=web&at="+itoa(restart.At.UnixMilli()), &d)
	if d.Why == nil || d.Why.Branch != "ok" || d.Why.Row == nil || d.Why.Row.ID != restart.ID {
		t.Fatalf("why = %+v (%s), want ok for run %d", d.Why, d.WhyError, restart.ID)
	}
	if d.Snapshot == nil || d.Snapshot.RunID != restart.ID || !strings.HasPrefix(d.Snapshot.Reason, "exited") || d.Cause != "exited: killed by SIGKILL" {
		t.Errorf("snapshot = %+v, cause %q: want the one the restart's cycle wrote", d.Snapshot, d.Cause)
	}
	if len(d.Logs) != 2 || d.Logs[0].Name != "runtime.prev.log" || d.Logs[1].Name != "runtime.log" {
		t.Fatalf("logs = %+v", d.Logs)
	}
	for _, l := range d.Logs {
		if !strings.Contains(strings.Join(l.Lines, "\n"), "connecting with token [redacted]") {
			t.Errorf("%s tail = %q, want the start line with the secret redacted", l.Name, l.Lines)
		}
	}
	// A run that is not a restart has no snapshot of its own: none shown.
	skipID, err := pg.store.Record(t.Context(), runtrace.Run{JobID: "watchdog:web", Trigger: runtrace.TriggerSchedule,
		StartedAt: time.Now(), Outcome: runtrace.OutcomeSkipped, Reason: runtrace.ReasonPaused})
	if err != nil {
		t.Fatal(err)
	}
	var sd Detail
	pg.getJSON("/api/detail?name=web&at="+itoa(time.Now().UnixMilli()+1000), &sd)
	if sd.Why == nil || sd.Why.Row == nil || sd.Why.Row.ID != skipID || sd.Snapshot != nil {
		t.Errorf("detail of a paused cycle: why %+v, snapshot %+v: want that row and no snapshot", sd.Why, sd.Snapshot)
	}
	var latest Detail
	pg.getJSON("/api/detail?name=web", &latest)
	if latest.Snapshot == nil || latest.Snapshot.RunID != restart.ID {
		t.Errorf("detail of web at no time: snapshot %+v, want the latest (run %d)", latest.Snapshot, restart.ID)
	}

	var jd Detail
	pg.getJSON("/api/detail?name=pull&at="+itoa(tl.Strips[1].Missing[0].At.UnixMilli()), &jd)
	if jd.Why == nil || jd.Why.Branch != "no-row" {
		t.Errorf("why of a missing slot = %+v, want no-row", jd.Why)
	}
	for _, path := range []string{"/api/state", "/api/timeline", "/api/detail?name=web", "/api/detail?name=web&at=" + itoa(restart.At.UnixMilli())} {
		b, _ := io.ReadAll(pg.get(path).Body)
		if strings.Contains(string(b), "hunter2") {
			t.Errorf("%s shows the secret: %s", path, b)
		}
	}
	if _, err := pg.store.Record(t.Context(), runtrace.Run{JobID: runtrace.AgentID, Trigger: runtrace.TriggerStartup, StartedAt: time.Now().Add(-time.Minute),
		Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonStarted, Detail: []byte(`{"version":"1.2.3"}`)}); err != nil {
		t.Fatal(err)
	}
	var ad Detail
	pg.getJSON("/api/detail?kind=agent", &ad)
	if ad.Kind != "agent" || ad.Row == nil || ad.Row.Trigger != runtrace.TriggerStartup || len(ad.Logs) != 1 || ad.Logs[0].Name != "agent.log" {
		t.Errorf("agent detail = %+v, want its start row and agent.log", ad)
	}
	if resp := pg.get("/api/detail?name=nosuch"); resp.StatusCode != 404 {
		t.Errorf("detail of an unknown name = %d, want 404", resp.StatusCode)
	}
	if resp := pg.get("/api/timeline?range=1y"); resp.StatusCode != 400 {
		t.Errorf("timeline range 1y = %d, want 400", resp.StatusCode)
	}
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestNoLedgerYet: a state dir no agent has used yet is a page that says
// so, not an error: the strips are there, empty, with the reason.
func TestNoLedgerYet(t *testing.T) {
	pg := newPage(t)
	pg.store.Close()
	os.Remove(pg.p.DB())
	var tl Timeline
	pg.getJSON("/api/timeline", &tl)
	if !strings.HasPrefix(tl.Error, "no runs yet") || len(tl.Strips) != 3 {
		t.Errorf("timeline without a ledger: %q, %d strips", tl.Error, len(tl.Strips))
	}
	var p Page
	pg.getJSON("/api/state", &p)
	if p.Ledger.OK || p.Agent.State != "stopped" || len(p.Services) != 1 {
		t.Errorf("state without a ledger: ledger %+v, agent %s", p.Ledger, p.Agent.State)
	}
	if _, err := os.Stat(pg.p.DB()); err == nil {
		t.Error("reading the page created the ledger")
	}
}

// TestCheckListen: loopback is served as it is; anything else only with
// --listen-public, and said to reach beyond the host.
func TestCheckListen(t *testing.T) {
	for _, c := range []struct {
		addr      string
		public    bool
		reachable bool
		ok        bool
	}{
		{"127.0.0.1:0", false, false, true},
		{"127.0.0.2:8790", false, false, true},
		{"[::1]:0", false, false, true},
		{"localhost:0", false, false, true},
		{"0.0.0.0:8790", false, true, false},
		{"192.0.2.7:8790", false, true, false},
		{"0.0.0.0:8790", true, true, true},
		{":8790", false, true, false},
		{"127.0.0.1", false, false, false},
		{"127.0.0.1:", false, false, false},
	} {
		reachable, err := CheckListen(c.addr, c.public)
		if (err == nil) != c.ok || (err == nil && reachable != c.reachable) {
			t.Errorf("CheckListen(%q, public=%v) = %v, %v; want ok=%v reachable=%v", c.addr, c.public, reachable, err, c.ok, c.reachable)
		}
	}
	if _, err := CheckListen("0.0.0.0:80", false); err == nil || !strings.Contains(err.Error(), "--listen-public") {
		t.Errorf("refusal %v does not name --listen-public", err)
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	if u := pageURL(ln.Addr(), "T"); u != "http://"+ln.Addr().String()+"/#token=T" {
		t.Errorf("pageURL = %q", u)
	}
	if u := pageURL(&net.TCPAddr{IP: net.IPv4zero, Port: 8790}, "T"); u != "http://127.0.0.1:8790/#token=T" {
		t.Errorf("pageURL of 0.0.0.0 = %q, want loopback", u)
	}
	if h := allowedHosts(&net.TCPAddr{IP: net.IPv4zero, Port: 8790}); h != nil {
		t.Errorf("a public listener limits Host to %v", h)
	}
}
