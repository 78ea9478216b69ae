package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"svcctl/e2e/rebootdrill/marker"
	"svcctl/runtrace"
)

// fixture is a drill run's evidence: markers as the guest prints them and a
// database written by svc-ctl's own runtrace store, each row in its boot.
type fixture struct {
	t       *testing.T
	dir     string
	b1, b2  time.Time // boot times
	markers []marker.Marker
	runs    []bootRun
}

// bootRun is a row and the boot (1, 2) whose svc-ctl wrote it.
type bootRun struct {
	boot int
	run  runtrace.Run
}

// bootID is boot n's kernel boot id in the fixture.
func bootID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", n) }

func newFixture(t *testing.T) *fixture {
	b1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return &fixture{t: t, dir: t.TempDir(), b1: b1, b2: b1.Add(90 * time.Second)}
}

func (f *fixture) mark(boot int, step string, ok bool, at time.Time, data any) {
	var raw json.RawMessage
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			f.t.Fatal(err)
		}
		raw = b
	}
	rc := -1
	if !ok {
		rc = 1
	}
	f.markers = append(f.markers, marker.Marker{Boot: boot, Step: step, OK: ok, RC: rc, AtMS: at.UnixMilli(), Data: raw})
}

// run adds a row written in boot (its svc-ctl records that boot's id).
func (f *fixture) run(boot int, job string, trigger runtrace.Trigger, at time.Time, outcome runtrace.Outcome, reason runtrace.Reason) {
	f.runs = append(f.runs, bootRun{boot, runtrace.Run{JobID: job, Trigger: trigger, StartedAt: at, FinishedAt: at.Add(time.Second),
		Outcome: outcome, Reason: reason}})
}

// bootMark is boot n's first marker: its boot time and boot id.
func (f *fixture) bootMark(n int, btime time.Time) {
	f.mark(n, "boot", true, btime.Add(12*time.Second), map[string]any{"btime": btime.Unix(), "boot_id": bootID(n)})
}

func verifyData(fails ...string) map[string]any {
	checks := []map[string]string{{"name": "agent installed", "status": "PASS", "evidence": "x"}}
	for _, n := range fails {
		checks = append(checks, map[string]string{"name": n, "status": "FAIL", "evidence": "no"})
	}
	return map[string]any{"ok": len(fails) == 0, "checks": checks}
}

// verifyStep adds a verify marker: rc 0 with no FAIL, else rc 1.
func (f *fixture) verifyStep(boot int, at time.Time, fails ...string) {
	f.mark(boot, "verify", len(fails) == 0, at, verifyData(fails...))
	if len(fails) == 0 {
		f.markers[len(f.markers)-1].RC = 0
	}
}

// mainRun is a good main drill; defect makes boot 2 the "not enabled" one.
func (f *fixture) mainRun(defect bool) {
	b1, b2 := f.b1, f.b2
	f.bootMark(1, b1)
	f.mark(1, "install", true, b1.Add(14*time.Second), nil)
	f.markers[len(f.markers)-1].RC = 0
	if defect {
		f.mark(1, "disable", true, b1.Add(15*time.Second), nil)
	}
	f.mark(1, "service-up", true, b1.Add(16*time.Second), map[string]any{"pid": 300, "waited_ms": 900})
	f.mark(1, "tree", true, b1.Add(16500*time.Millisecond), map[string]any{"processes": 2, "via": []string{"session", "cgroup"}})
	if defect {
		f.verifyStep(1, b1.Add(18*time.Second), "agent installed") // installed but not enabled
	} else {
		f.verifyStep(1, b1.Add(18*time.Second))
	}
	f.mark(1, "kill", true, b1.Add(19*time.Second), map[string]any{"pid": 300, "killed_at_ms": b1.Add(19 * time.Second).UnixMilli()})
	f.mark(1, "restored", true, b1.Add(21*time.Second), map[string]any{"pid": 310, "old_pid": 300, "waited_ms": 1500})
	f.mark(1, "tree-restored", true, b1.Add(21500*time.Millisecond), map[string]any{"processes": 2, "via": []string{"session", "cgroup"}})
	f.mark(1, "reboot", true, b1.Add(25*time.Second), nil)
	f.run(1, "agent", "startup", b1.Add(14*time.Second), "ok", "started")
	f.run(1, "watchdog:drillsvc", "startup", b1.Add(15*time.Second), "ok", "started")
	f.run(1, "watchdog:drillsvc", "schedule", b1.Add(17*time.Second), "ok", "already-running")
	f.run(1, "watchdog:drillsvc", "event", b1.Add(19500*time.Millisecond), "ok", "started")

	f.bootMark(2, b2)
	if defect {
		f.mark(2, "service-up", false, b2.Add(70*time.Second), map[string]any{"waited_ms": 60000})
		f.mark(2, "tree", false, b2.Add(71*time.Second), nil)
		f.verifyStep(2, b2.Add(130*time.Second), "agent started since boot", "heartbeat fresh")
	} else {
		f.run(2, "agent", "startup", b2.Add(9*time.Second), "ok", "started")
		f.run(2, "watchdog:drillsvc", "startup", b2.Add(10*time.Second), "ok", "started")
		f.mark(2, "service-up", true, b2.Add(13*time.Second), map[string]any{"pid": 250, "waited_ms": 100})
		f.mark(2, "tree", true, b2.Add(13500*time.Millisecond), map[string]any{"processes": 2, "via": []string{"session", "cgroup"}})
		f.verifyStep(2, b2.Add(14*time.Second))
	}
	f.mark(2, "poweroff", true, b2.Add(140*time.Second), nil)
}

// backstopRun is a good backstop drill; agentBack makes the agent come back
// after it was stopped, which must fail. The backstop's cycles carry trigger
// "schedule", as `svc-ctl start --all --scheduled` records them.
func (f *fixture) backstopRun(agentBack bool) {
	b1, b2 := f.b1, f.b2
	ok0 := func(boot int, step string, at time.Time) {
		f.mark(boot, step, true, at, nil)
		f.markers[len(f.markers)-1].RC = 0
	}
	units := func(fired time.Time) map[string]any {
		u := map[string]any{"unit": "svc-ctl.service", "active": "inactive", "enabled": "disabled",
			"timer": "svc-ctl-backstop.timer", "timer_last_fired": ""}
		if !fired.IsZero() {
			u["timer_last_fired"] = fired.UTC().Format("Mon 2006-01-02 15:04:05 MST") // as systemd 252 prints it
		}
		return u
	}
	f.bootMark(1, b1)
	ok0(1, "install", b1.Add(14*time.Second))
	ok0(1, "install-backstop", b1.Add(16*time.Second))
	f.mark(1, "service-up", true, b1.Add(17*time.Second), map[string]any{"pid": 300})
	ok0(1, "agent-stop", b1.Add(18*time.Second))
	ok0(1, "agent-disable", b1.Add(19*time.Second))
	f.mark(1, "units", true, b1.Add(19*time.Second), units(b1.Add(15*time.Second)))
	f.mark(1, "kill", true, b1.Add(20*time.Second), map[string]any{"pid": 300, "killed_at_ms": b1.Add(20 * time.Second).UnixMilli()})
	f.mark(1, "restored", true, b1.Add(70*time.Second), map[string]any{"pid": 320, "old_pid": 300})
	f.mark(1, "units-after", true, b1.Add(71*time.Second), units(b1.Add(68*time.Second)))
	f.mark(1, "reboot", true, b1.Add(72*time.Second), nil)
	f.run(1, "agent", "startup", b1.Add(14*time.Second), "ok", "started")
	f.run(1, "watchdog:drillsvc", "schedule", b1.Add(15*time.Second), "ok", "started")
	f.run(1, "watchdog:drillsvc", "schedule", b1.Add(69*time.Second), "ok", "started")
	if agentBack {
		f.run(1, "agent", "startup", b1.Add(40*time.Second), "ok", "started")
	}
	f.bootMark(2, b2)
	f.mark(2, "units", true, b2.Add(13*time.Second), units(time.Time{}))
	f.run(2, "watchdog:drillsvc", "schedule", b2.Add(60*time.Second), "ok", "started")
	f.mark(2, "service-up", true, b2.Add(61*time.Second), map[string]any{"pid": 200})
	f.mark(2, "units-after", true, b2.Add(62*time.Second), units(b2.Add(60*time.Second)))
	f.mark(2, "poweroff", true, b2.Add(63*time.Second), nil)
}

// write puts the evidence on disk and returns the drill-verdict arguments.
func (f *fixture) write(scenario string) []string {
	f.t.Helper()
	var log strings.Builder
	log.WriteString("[    0.000000] Linux version 6.1.0 (kernel noise on the same port is ignored)\n")
	for _, m := range f.markers {
		l, err := m.Line()
		if err != nil {
			f.t.Fatal(err)
		}
		log.WriteString(l + "\r\n")
	}
	markers := filepath.Join(f.dir, "drill.log")
	if err := os.WriteFile(markers, []byte(log.String()), 0o600); err != nil {
		f.t.Fatal(err)
	}
	db := filepath.Join(f.dir, "svc-ctl.db")
	// Each boot's rows through a store of that boot, as each boot's svc-ctl
	// writes them, in the order given (ids follow it).
	var st *runtrace.Store
	boot := 0
	for _, r := range f.runs {
		if r.boot != boot {
			f.closeStore(st)
			var err error
			st, err = runtrace.Open(db, runtrace.Options{Logger: slog.New(slog.DiscardHandler), Boot: bootID(r.boot)})
			if err != nil {
				f.t.Fatal(err)
			}
			boot = r.boot
		}
		if _, err := st.Record(context.Background(), r.run); err != nil {
			f.t.Fatalf("record %+v: %v", r, err)
		}
	}
	f.closeStore(st)
	return []string{"--scenario", scenario, "--markers", markers, "--db", db, "--qemu-exit", "0"}
}

func (f *fixture) closeStore(st *runtrace.Store) {
	if st == nil {
		return
	}
	if err := st.Close(); err != nil {
		f.t.Fatal(err)
	}
}

// judge runs drill-verdict as the script does and returns exit code and output.
func judge(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out, errb strings.Builder
	code := run(args, &out, &errb)
	// The transcript is for a person reading a failure; a passing test
	// keeps quiet (under Wine a logged line is also one the harness must
	// prove harmless). Registered after the fixture's TempDir, so it runs
	// before that dir's cleanup can mark the test failed.
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("drill-verdict %s -> %d\n%s%s", strings.Join(args[:2], " "), code, out.String(), errb.String())
		}
	})
	return code, out.String()
}

func wantLine(t *testing.T, out, prefix string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, prefix) {
			return
		}
	}
	t.Errorf("no line starting %q in:\n%s", prefix, out)
}

func TestMainPasses(t *testing.T) {
	f := newFixture(t)
	f.mainRun(false)
	code, out := judge(t, f.write("main")...)
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	wantLine(t, out, "PASS b2.agent-started-since-boot: boot 2")
	wantLine(t, out, "PASS b2.cycles-both-boots: watchdog:drillsvc: 3 cycles in boot 1, 1 in boot 2")
	wantLine(t, out, "VERDICT main: PASS")
}

// The defect the drill exists for: the agent ran until the reboot, and not
// after it. The main scenario must fail on it.
func TestMainFailsWhenAgentDidNotComeBack(t *testing.T) {
	f := newFixture(t)
	f.mainRun(true)
	code, out := judge(t, f.write("main")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL b2.agent-started-since-boot: boot 2 at 2026-03-01T10:01:30Z: no agent startup row written in this boot; the last: #1 agent startup 2026-03-01T10:00:14Z")
	wantLine(t, out, "FAIL b2.verify: boot 2: verify FAIL: agent started since boot: no; heartbeat fresh: no")
	wantLine(t, out, "PASS b1.agent-restores")
	wantLine(t, out, "VERDICT main: FAIL")
}

// A startup row is a boot's by the boot id it records, whatever its time:
// one of boot 2 stamped a second before the guest's whole-second btime (RTC
// resolution) is boot 2's; one of boot 1 written a second before the
// reboot is not, though a clock window of any slack would take it.
func TestAgentStartedIsJudgedByBootID(t *testing.T) {
	f := newFixture(t)
	f.mainRun(true)
	f.run(2, "agent", "startup", f.b2.Add(-time.Second), "ok", "started")
	_, out := judge(t, f.write("main")...)
	wantLine(t, out, "PASS b2.agent-started-since-boot")

	f = newFixture(t)
	f.mainRun(true)
	f.run(1, "agent", "startup", f.b2.Add(-time.Second), "ok", "started")
	_, out = judge(t, f.write("main")...)
	wantLine(t, out, "FAIL b2.agent-started-since-boot: boot 2 at 2026-03-01T10:01:30Z: no agent startup row written in this boot")
}

func TestNegativeExpectsTheDefect(t *testing.T) {
	f := newFixture(t)
	f.mainRun(true)
	code, out := judge(t, f.write("negative")...)
	if code != 0 {
		t.Fatalf("negative self-test that saw the defect: exit %d, want 0", code)
	}
	wantLine(t, out, "FAIL b2.agent-started-since-boot (must FAIL)")
	wantLine(t, out, "FAIL b1.verify (must FAIL)")
	wantLine(t, out, "PASS b1.verify-sees-not-enabled")
	wantLine(t, out, "PASS b1.disable")
	wantLine(t, out, "VERDICT negative: PASS")
}

// A negative run that does not see the defect means the drill is blind.
func TestNegativeFailsWhenDrillIsBlind(t *testing.T) {
	f := newFixture(t)
	f.mainRun(false)
	f.mark(1, "disable", true, f.b1.Add(15*time.Second), nil)
	code, out := judge(t, f.write("negative")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "PASS b2.agent-started-since-boot (must FAIL)")
	wantLine(t, out, "VERDICT negative: FAIL")
}

// A negative run whose harness broke proves nothing either: a hung guest
// also has no startup row after the reboot.
func TestNegativeFailsWhenHarnessBroke(t *testing.T) {
	f := newFixture(t)
	f.mainRun(true)
	args := f.write("negative")
	args[len(args)-1] = "-1"
	code, out := judge(t, append(args, "--timed-out")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL harness.qemu: the guest hung")
	wantLine(t, out, "VERDICT negative: FAIL")
}

// The cycle that started the process the drill then killed must not pass
// for the one that restored it, however close in time.
func TestRestoreMustFollowTheKill(t *testing.T) {
	f := newFixture(t)
	f.mainRun(false)
	for i, r := range f.runs {
		if r.run.Trigger == "event" { // the restore: gone, only the first start remains
			f.runs = append(f.runs[:i], f.runs[i+1:]...)
			break
		}
	}
	f.run(1, "watchdog:drillsvc", "schedule", f.b1.Add(18900*time.Millisecond), "ok", "started") // 100ms before the kill
	code, out := judge(t, f.write("main")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL b1.agent-restores: boot 1: a new process (pid 310) is healthy, but run_trace has no watchdog:drillsvc ok/started row between the kill")
}

func TestBackstop(t *testing.T) {
	f := newFixture(t)
	f.backstopRun(false)
	code, out := judge(t, f.write("backstop")...)
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	wantLine(t, out, "PASS b1.timer-restores: boot 1: pid 300 killed at 2026-03-01T10:00:20Z, the timer fired at 2026-03-01T10:01:08Z, #3 watchdog:drillsvc schedule")
	wantLine(t, out, "PASS b2.timer-starts: boot 2 at 2026-03-01T10:01:30Z: the timer fired at 2026-03-01T10:02:30Z, #4 watchdog:drillsvc schedule")
}

// Boot 1's restore written 2 s before boot 2's btime (the guest rebooted
// right after it) is boot 1's, by the boot id it records: boot 2's check
// judges boot 2's own start. A clock window (btime - slack) took boot 1's
// row for boot 2's and failed the drill at random ("the timer last fired
// at ..., not between ... and the start of #3": failed before).
func TestBackstopRestoreSecondsBeforeReboot(t *testing.T) {
	f := newFixture(t)
	f.b2 = f.b1.Add(71 * time.Second) // boot 1's restore row is at b1+69s
	f.backstopRun(false)
	code, out := judge(t, f.write("backstop")...)
	if code != 0 {
		t.Fatalf("exit %d, want 0", code)
	}
	wantLine(t, out, "PASS b2.timer-starts: boot 2 at 2026-03-01T10:01:11Z: the timer fired at 2026-03-01T10:02:11Z, #4 watchdog:drillsvc schedule")
}

// The same in the main scenario: boot 1's last cycles, written seconds
// before the reboot, are not boot 2's, and boot 2 is judged on its own.
func TestMainRowsSecondsBeforeRebootStayInTheirBoot(t *testing.T) {
	f := newFixture(t)
	f.mainRun(true) // the agent did not come back after the reboot
	f.run(1, "agent", "startup", f.b2.Add(-2*time.Second), "ok", "started")
	f.run(1, "watchdog:drillsvc", "schedule", f.b2.Add(-time.Second), "ok", "started")
	code, out := judge(t, f.write("main")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL b2.agent-started-since-boot: boot 2 at 2026-03-01T10:01:30Z: no agent startup row written in this boot")
	wantLine(t, out, "FAIL b2.cycles-both-boots: watchdog:drillsvc: 4 cycles in boot 1, 0 in boot 2")
}

// A row that names no boot cannot be judged as any boot's: the ledger of an
// svc-ctl that does not record it fails the harness, not a check at random.
func TestRowsWithoutBootFailTheHarness(t *testing.T) {
	f := newFixture(t)
	f.mainRun(false)
	args := f.write("main")
	raw, err := sql.Open("sqlite", args[5])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE run_trace SET boot_id = NULL WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	code, out := judge(t, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL harness.db: 1 of 6 run_trace rows name no boot (boot_id), the first #2 watchdog:drillsvc startup")
}

func TestBackstopAgentCameBack(t *testing.T) {
	f := newFixture(t)
	f.backstopRun(true)
	code, out := judge(t, f.write("backstop")...)
	if code != 1 {
		t.Fatalf("agent back after stop: exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL b1.no-agent-after-stop: the agent started again")
}

// A restore the timer cannot have made (it fired before the kill and not
// since) is not the backstop's doing.
func TestBackstopTimerDidNotFire(t *testing.T) {
	f := newFixture(t)
	f.backstopRun(false)
	for i, m := range f.markers {
		if m.Boot == 1 && m.Step == "units-after" {
			f.markers[i].Data = []byte(`{"unit":"svc-ctl.service","active":"inactive","enabled":"disabled","timer":"svc-ctl-backstop.timer","timer_last_fired":"@` +
				fmt.Sprint(f.b1.Add(15*time.Second).Unix()) + `"}`)
		}
	}
	code, out := judge(t, f.write("backstop")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL b1.timer-restores: boot 1: the timer last fired at 2026-03-01T10:00:15Z, not between 2026-03-01T10:00:20Z")
}

func TestHarnessFailures(t *testing.T) {
	f := newFixture(t)
	f.mainRun(false)
	f.markers = f.markers[:len(f.markers)-1] // no poweroff marker
	args := f.write("main")
	// a torn marker at the end: lost evidence
	fh, err := os.OpenFile(args[3], os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(`DRILL boot=2 step=poweroff ok=true {"boot":2,"st` + "\n")
	fh.Close()
	args[5] = filepath.Join(f.dir, "missing.db")
	code, out := judge(t, args...)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	wantLine(t, out, "FAIL harness.markers: line ")
	wantLine(t, out, "FAIL harness.boots: boot 2 ended without its poweroff marker")
	wantLine(t, out, "FAIL harness.db: read back ")
}

func TestUsage(t *testing.T) {
	if code, _ := judge(t, "--scenario", "nope", "--markers", "x"); code != 2 {
		t.Fatalf("unknown scenario: exit %d, want 2", code)
	}
}

func TestParseSystemdTime(t *testing.T) {
	want := time.Date(2026, 11, 29, 23, 52, 13, 0, time.UTC)
	for _, in := range []string{"@1795996333", "Sun 2026-11-29 23:52:13 UTC"} {
		got, err := parseSystemdTime(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSystemdTime(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "n/a", "@", "@0"} {
		if _, err := parseSystemdTime(in); err == nil {
			t.Errorf("parseSystemdTime(%q): no error", in)
		}
	}
}
