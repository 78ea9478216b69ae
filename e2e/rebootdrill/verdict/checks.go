package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"svcctl/e2e/rebootdrill/marker"
	"svcctl/runtrace"
)

// clockSlack: the guest's clock is an emulated RTC with 1 s resolution, and
// btime is whole seconds; comparisons of guest times allow this much. It is
// never used to tell which boot a row belongs to: that is the boot id the
// row records (inBoot).
const clockSlack = 2 * time.Second

// check is one judgement with the evidence it rests on.
type check struct {
	name     string
	pass     bool
	evidence string
}

func pass(name, format string, a ...any) check {
	return check{name: name, pass: true, evidence: fmt.Sprintf(format, a...)}
}

func fail(name, format string, a ...any) check {
	return check{name: name, evidence: fmt.Sprintf(format, a...)}
}

// verdict is a scenario's checks and what is expected of them.
type verdict struct {
	scenario string
	checks   []check
	// mustFail names the checks a negative self-test requires to FAIL; the
	// checks mustPass accepts must still PASS (the harness itself worked).
	// Without mustFail every check must pass.
	mustFail []string
	mustPass func(name string) bool
}

func (v verdict) expected() bool {
	for _, c := range v.checks {
		switch {
		case v.mustFail == nil && !c.pass:
			return false
		case v.mustFail != nil && contains(v.mustFail, c.name) && c.pass:
			return false
		case v.mustFail != nil && v.mustPass(c.name) && !c.pass:
			return false
		}
	}
	for _, n := range v.mustFail {
		if !v.has(n) {
			return false
		}
	}
	return true
}

func (v verdict) has(name string) bool {
	for _, c := range v.checks {
		if c.name == name {
			return true
		}
	}
	return false
}

func (v verdict) print(w io.Writer) {
	for _, c := range v.checks {
		status := "FAIL"
		if c.pass {
			status = "PASS"
		}
		note := ""
		switch {
		case v.mustFail != nil && contains(v.mustFail, c.name):
			note = " (must FAIL)"
		case v.mustFail != nil && !v.mustPass(c.name):
			note = " (either way)"
		}
		fmt.Fprintf(w, "%s %s%s: %s\n", status, c.name, note, c.evidence)
	}
	result := "FAIL"
	if v.expected() {
		result = "PASS"
	}
	if v.mustFail != nil {
		fmt.Fprintf(w, "VERDICT %s: %s (the drill must fail exactly where the defect is: %s)\n",
			v.scenario, result, strings.Join(v.mustFail, ", "))
		return
	}
	fmt.Fprintf(w, "VERDICT %s: %s\n", v.scenario, result)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// harness checks that the drill itself ran as planned: a scenario of boots
// boots, each one ended by the guest, the evidence read back.
func (ev *evidence) harness(boots int) []check {
	var out []check
	switch {
	case ev.in.timedOut:
		out = append(out, fail("harness.qemu", "the guest hung: the host killed qemu at its deadline"))
	case ev.in.qemuExit != 0:
		out = append(out, fail("harness.qemu", "qemu exited %d, not 0 (a guest power-off exits 0)", ev.in.qemuExit))
	default:
		out = append(out, pass("harness.qemu", "qemu exited 0: the guest powered itself off"))
	}
	if ev.markErr != nil {
		out = append(out, fail("harness.markers", "%v", ev.markErr))
	} else {
		out = append(out, pass("harness.markers", "%d marker lines read from the evidence port", len(ev.markers)))
	}
	out = append(out, ev.bootsCheck(boots))
	out = append(out, ev.dbCheck())
	return out
}

// dbCheck: the ledger was read back, and every row names the boot it was
// written in (else it cannot be judged as any boot's).
func (ev *evidence) dbCheck() check {
	const name = "harness.db"
	if ev.dbErr != nil {
		return fail(name, "%v", ev.dbErr)
	}
	if rs := ev.rowsWhere(func(r row) bool { return r.Boot == "" }); len(rs) > 0 {
		return fail(name, "%d of %d run_trace rows name no boot (boot_id), the first %s: they cannot be told to a boot", len(rs), len(ev.rows), rs[0])
	}
	return pass(name, "%d run_trace rows read back from the guest's svc-ctl.db, each naming its boot", len(ev.rows))
}

func (ev *evidence) bootsCheck(boots int) check {
	const name = "harness.boots"
	for _, m := range ev.markers {
		if !m.OK && (m.Step == "counter" || m.Step == "scenario" || m.Step == "unexpected-boot") {
			return fail(name, "boot %d: %s: %s", m.Boot, m.Step, m.Note)
		}
	}
	if ev.maxBoot != boots {
		return fail(name, "the guest reported %d boots, the scenario has %d", ev.maxBoot, boots)
	}
	ids := map[string]int{}
	for n := 1; n <= boots; n++ {
		end := "reboot"
		if n == boots {
			end = "poweroff"
		}
		if _, ok := ev.btime(n); !ok {
			return fail(name, "boot %d: no boot-time marker", n)
		}
		id, ok := ev.bootID(n)
		if !ok {
			return fail(name, "boot %d: its boot marker has no boot_id", n)
		}
		if prev, seen := ids[id]; seen {
			return fail(name, "boots %d and %d have one boot id, %s: the guest did not reboot", prev, n, id)
		}
		ids[id] = n
		if _, ok := ev.step(n, end); !ok {
			return fail(name, "boot %d ended without its %s marker", n, end)
		}
	}
	return pass(name, "%d boots, each with its boot time, its own boot id and its end (reboot, then poweroff)", boots)
}

// stepOK: the marker of step in boot says it succeeded.
func (ev *evidence) stepOK(boot int, step, name string) check {
	m, ok := ev.step(boot, step)
	switch {
	case !ok:
		return fail(name, "boot %d: no %s marker", boot, step)
	case !m.OK:
		return fail(name, "boot %d: %s failed: rc=%d %s%s", boot, step, m.RC, m.Note, excerpt(m))
	}
	return pass(name, "boot %d: %s ok%s", boot, step, waited(m))
}

// excerpt is the start of a marker's output, for a failure's evidence.
func excerpt(m marker.Marker) string {
	s := strings.Join(strings.Fields(m.Output), " ")
	if s == "" {
		return ""
	}
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return ": " + s
}

func waited(m marker.Marker) string {
	if ms := field(m, "waited_ms"); ms > 0 {
		return fmt.Sprintf(" after %s", time.Duration(ms)*time.Millisecond)
	}
	return ""
}

// verify: `svc-ctl verify --json` exited 0 and listed no FAIL.
func (ev *evidence) verify(boot int, name string) check {
	m, ok := ev.step(boot, "verify")
	if !ok {
		return fail(name, "boot %d: no verify marker", boot)
	}
	var rep struct {
		Checks []struct{ Name, Status, Evidence string } `json:"checks"`
	}
	if err := json.Unmarshal(m.Data, &rep); err != nil || len(rep.Checks) == 0 {
		return fail(name, "boot %d: verify printed no checks (rc=%d %s)%s", boot, m.RC, m.Note, excerpt(m))
	}
	var bad []string
	for _, c := range rep.Checks {
		if c.Status == "FAIL" {
			bad = append(bad, c.Name+": "+c.Evidence)
		}
	}
	switch {
	case len(bad) > 0:
		return fail(name, "boot %d: verify FAIL: %s", boot, strings.Join(bad, "; "))
	case m.RC != 0:
		return fail(name, "boot %d: verify exited %d with no FAIL listed", boot, m.RC)
	}
	return pass(name, "boot %d: %d checks, no FAIL (%s)", boot, len(rep.Checks), m.Note)
}

// verifyFailsOnly: `svc-ctl verify` failed on boot n, and only on the check
// named only: it saw the defect the scenario planted, and nothing else broke.
func (ev *evidence) verifyFailsOnly(boot int, name, only string) check {
	m, ok := ev.step(boot, "verify")
	if !ok {
		return fail(name, "boot %d: no verify marker", boot)
	}
	var rep struct {
		Checks []struct{ Name, Status, Evidence string } `json:"checks"`
	}
	if err := json.Unmarshal(m.Data, &rep); err != nil || len(rep.Checks) == 0 {
		return fail(name, "boot %d: verify printed no checks (rc=%d %s)%s", boot, m.RC, m.Note, excerpt(m))
	}
	var hit, other []string
	for _, c := range rep.Checks {
		switch {
		case c.Status != "FAIL":
		case c.Name == only:
			hit = append(hit, c.Evidence)
		default:
			other = append(other, c.Name+": "+c.Evidence)
		}
	}
	switch {
	case len(hit) == 0:
		return fail(name, "boot %d: verify did not FAIL %q", boot, only)
	case len(other) > 0:
		return fail(name, "boot %d: verify also failed: %s", boot, strings.Join(other, "; "))
	}
	return pass(name, "boot %d: verify FAIL %s: %s", boot, only, hit[0])
}

// agentStarted is the L1 proof: a startup row of the agent written in this
// boot. Not "the unit file exists", not "the unit is enabled".
func (ev *evidence) agentStarted(boot int, name string) check {
	bt, ok := ev.btime(boot)
	if !ok {
		return fail(name, "boot %d: boot time unknown", boot)
	}
	if ev.dbErr != nil {
		return fail(name, "no database: %v", ev.dbErr)
	}
	in := ev.startupsIn(boot)
	if len(in) == 0 {
		last := "none ever"
		if all := ev.startupsSince(time.Time{}); len(all) > 0 {
			last = all[len(all)-1].String()
		}
		return fail(name, "boot %d at %s: no agent startup row written in this boot; the last: %s", boot, utc(bt), last)
	}
	r := in[0]
	return pass(name, "boot %d at %s: %s, %s after the boot", boot, utc(bt), r, r.StartedAt.Sub(bt).Round(time.Second))
}

func isStartup(r row) bool {
	return r.JobID == "agent" && r.Trigger == "startup" && r.Outcome == "ok" && r.Reason == "started"
}

func (ev *evidence) startupsSince(t time.Time) []row {
	return ev.rowsWhere(func(r row) bool { return isStartup(r) && !r.StartedAt.Before(t) })
}

// startupsIn are the agent's startup rows written in boot n.
func (ev *evidence) startupsIn(n int) []row {
	return ev.rowsWhere(func(r row) bool { return isStartup(r) && ev.inBoot(r, n) })
}

// restored: after the kill a new process answered healthy, and run_trace
// holds the cycle that started it, between the kill and then.
func (ev *evidence) restored(boot int, name string) check {
	k, m, starts, bad := ev.restoreRows(boot, name)
	if bad != nil {
		return *bad
	}
	return pass(name, "boot %d: pid %d killed at %s, pid %d healthy%s; %s", boot, field(k, "pid"),
		utc(time.UnixMilli(field(k, "killed_at_ms"))), field(m, "pid"), waited(m), starts[0])
}

// restoreRows finds the kill, the restore and the cycles that restarted the
// service in between; bad is set when any is missing.
func (ev *evidence) restoreRows(boot int, name string) (k, m marker.Marker, starts []row, bad *check) {
	k, ok := ev.step(boot, "kill")
	if !ok || !k.OK {
		c := fail(name, "boot %d: the service was not killed: %s", boot, k.Note)
		return k, m, nil, &c
	}
	killed := time.UnixMilli(field(k, "killed_at_ms"))
	m, ok = ev.step(boot, "restored")
	if !ok || !m.OK {
		c := fail(name, "boot %d: after the kill at %s no new healthy process: %s", boot, utc(killed), m.Note)
		return k, m, nil, &c
	}
	// No slack: the kill time and started_at are read from the same guest
	// clock in milliseconds, and a slack would let the cycle that started
	// the killed process pass for the one that restored it. The cycle began
	// before the drill saw the new process healthy.
	starts = ev.startsBetween(boot, killed, time.UnixMilli(m.AtMS))
	if len(starts) == 0 {
		c := fail(name, "boot %d: a new process (pid %d) is healthy, but run_trace has no %s ok/started row between the kill at %s and then",
			boot, field(m, "pid"), ev.job(), utc(killed))
		return k, m, nil, &c
	}
	return k, m, starts, nil
}

// timerRestored: as restored, and the backstop timer fired after the kill,
// before the cycle that restarted the service: the timer did it.
func (ev *evidence) timerRestored(boot int, name string) check {
	k, m, starts, bad := ev.restoreRows(boot, name)
	if bad != nil {
		return *bad
	}
	killed := time.UnixMilli(field(k, "killed_at_ms"))
	fired, c := ev.timerFired(boot, name, killed, starts[0])
	if c != nil {
		return *c
	}
	return pass(name, "boot %d: pid %d killed at %s, the timer fired at %s, %s, pid %d healthy%s", boot, field(k, "pid"),
		utc(killed), utc(fired), starts[0], field(m, "pid"), waited(m))
}

// timerFired reads when the backstop timer last fired (units-after marker)
// and checks it lies between after and the start of cycle r.
func (ev *evidence) timerFired(boot int, name string, after time.Time, r row) (time.Time, *check) {
	u, ok := ev.step(boot, "units-after")
	raw := text(u, "timer_last_fired")
	fired, err := parseSystemdTime(raw)
	if !ok || err != nil {
		c := fail(name, "boot %d: the backstop timer %q never fired (LastTriggerUSec=%q)", boot, text(u, "timer"), raw)
		return time.Time{}, &c
	}
	if fired.Before(after.Add(-clockSlack)) || fired.After(r.StartedAt.Add(clockSlack)) {
		c := fail(name, "boot %d: the timer last fired at %s, not between %s and the start of %s", boot, utc(fired), utc(after), r)
		return time.Time{}, &c
	}
	return fired, nil
}

func (ev *evidence) job() string { return runtrace.WatchdogID(ev.in.service) }

// startsBetween are the service's ok/started cycles written in boot n that
// began in [from, to] (a zero from: since the boot began).
func (ev *evidence) startsBetween(n int, from, to time.Time) []row {
	return ev.rowsWhere(func(r row) bool {
		return r.JobID == ev.job() && r.Outcome == "ok" && r.Reason == "started" && ev.inBoot(r, n) &&
			!r.StartedAt.Before(from) && !r.StartedAt.After(to)
	})
}

// bootIsNew: boot n really is a new boot, after boot n-1 asked to reboot.
func (ev *evidence) bootIsNew(n int, name string) check {
	prev, ok1 := ev.btime(n - 1)
	cur, ok2 := ev.btime(n)
	rb, ok3 := ev.step(n-1, "reboot")
	switch {
	case !ok1 || !ok2 || !ok3:
		return fail(name, "boot times or the reboot marker missing")
	case !cur.After(prev):
		return fail(name, "boot %d at %s is not after boot %d at %s", n, utc(cur), n-1, utc(prev))
	case cur.Before(time.UnixMilli(rb.AtMS).Add(-clockSlack)):
		return fail(name, "boot %d at %s is before boot %d asked to reboot (%s)", n, utc(cur), n-1, utc(time.UnixMilli(rb.AtMS)))
	}
	return pass(name, "boot %d at %s, %s after boot %d", n, utc(cur), cur.Sub(prev).Round(time.Second), n-1)
}

// cyclesBothBoots: the watchdog cycled in the boot before the reboot and
// in boot n after it, each row told to its boot by the boot id it records.
func (ev *evidence) cyclesBothBoots(boot int, name string) check {
	_, ok1 := ev.bootID(boot - 1)
	_, ok2 := ev.bootID(boot)
	if !ok1 || !ok2 || ev.dbErr != nil {
		return fail(name, "boot ids or database missing")
	}
	var before, after int
	for _, r := range ev.rowsWhere(func(r row) bool { return r.JobID == ev.job() }) {
		switch {
		case ev.inBoot(r, boot-1):
			before++
		case ev.inBoot(r, boot):
			after++
		}
	}
	if before == 0 || after == 0 {
		return fail(name, "%s: %d cycles in boot %d, %d in boot %d", ev.job(), before, boot-1, after, boot)
	}
	return pass(name, "%s: %d cycles in boot %d, %d in boot %d", ev.job(), before, boot-1, after, boot)
}

// agentDown: systemd reports the agent's unit not active (and, with
// disabled, not enabled) at the marker step.
func (ev *evidence) agentDown(boot int, step, name string, disabled bool) check {
	m, ok := ev.step(boot, step)
	if !ok {
		return fail(name, "boot %d: no %s marker", boot, step)
	}
	active, enabled := text(m, "active"), text(m, "enabled")
	if active == "active" || (disabled && enabled != "disabled") {
		return fail(name, "boot %d: %s is %s and %s", boot, text(m, "unit"), active, enabled)
	}
	return pass(name, "boot %d: %s is %s and %s", boot, text(m, "unit"), active, enabled)
}

// noAgentIn: no agent startup row written in boot n: nothing started it.
func (ev *evidence) noAgentIn(boot int, name string) check {
	if ev.dbErr != nil {
		return fail(name, "no database: %v", ev.dbErr)
	}
	if _, ok := ev.bootID(boot); !ok {
		return fail(name, "boot %d: boot id unknown", boot)
	}
	if rs := ev.startupsIn(boot); len(rs) > 0 {
		return fail(name, "the agent started in boot %d: %s", boot, rs[0])
	}
	return pass(name, "no agent startup row written in boot %d", boot)
}

// noAgentSince: no agent startup row since t: nothing brought the agent back.
func (ev *evidence) noAgentSince(t time.Time, name, what string) check {
	if ev.dbErr != nil {
		return fail(name, "no database: %v", ev.dbErr)
	}
	if rs := ev.startupsSince(t); len(rs) > 0 {
		return fail(name, "the agent started again after %s: %s", what, rs[0])
	}
	return pass(name, "no agent startup row after %s (%s)", what, utc(t))
}

func utc(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// parseSystemdTime reads a timestamp property of `systemctl show`: "@<unix
// seconds>" where --timestamp=unix is honoured, else systemd's own
// "Sun 2026-11-29 23:52:13 UTC" (systemd 252 ignores --timestamp for show).
// The guest runs in UTC. Empty (never) is an error.
func parseSystemdTime(s string) (time.Time, error) {
	if v, ok := strings.CutPrefix(s, "@"); ok {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil || sec <= 0 {
			return time.Time{}, fmt.Errorf("timestamp %q: %w", s, err)
		}
		return time.Unix(sec, 0), nil
	}
	t, err := time.Parse("Mon 2006-01-02 15:04:05 MST", s)
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q: %w", s, err)
	}
	return t, nil
}
