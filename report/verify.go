package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"svcctl/internal/words"
	"time"

	"svcctl/config"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// Verdicts of `svc-ctl verify`.
const (
	Pass = "PASS"
	Warn = "WARN"
	Fail = "FAIL"
)

// Check is one line of `svc-ctl verify`: a claim and the evidence for it.
type Check struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Evidence string `json:"evidence"`
}

// VerifyReport is the acceptance by evidence.
type VerifyReport struct {
	Now    time.Time `json:"now"`
	OK     bool      `json:"ok"` // no FAIL
	Checks []Check   `json:"checks"`
}

// InstallInfo is what the OS service manager says (filled by the caller: the
// install package sits above this one).
type InstallInfo struct {
	Known     bool   `json:"known"`     // false: could not be asked
	Installed bool   `json:"installed"` // the agent is registered as an OS service
	Mode      string `json:"mode,omitempty"`
	Platform  string `json:"platform,omitempty"` // systemd, launchd, windows-service, unix-systemv...
	Running   bool   `json:"running"`
	Enabled   *bool  `json:"enabled,omitempty"` // starts at the next boot; nil = cannot be asked
	Detail    string `json:"detail,omitempty"`
	// The service manager's settings beside the service (Windows: recovery
	// on non-crash failures, the preshutdown timeout), read back from it:
	// SettingsChecked when they could be read, SettingsError when not, and
	// one SettingWarnings line for each it does not hold as install sets it.
	SettingsChecked bool     `json:"settings_checked,omitempty"`
	SettingsError   string   `json:"settings_error,omitempty"`
	SettingWarnings []string `json:"setting_warnings,omitempty"`
	// Backstop
	BackstopKnown     bool          `json:"-"`
	BackstopInstalled bool          `json:"backstop_installed"`
	BackstopEvery     time.Duration `json:"-"`
	BackstopDetail    string        `json:"backstop,omitempty"`
}

// VerifyEnv is what Verify reads besides the state dir; tests inject it.
type VerifyEnv struct {
	Now      time.Time
	BootTime time.Time
	Install  InstallInfo
}

// Verify checks every layer by its evidence: L1 by the agent's startup row
// against the host's boot time, L3 by the age of its cycles, the ledger by
// reading it. It never changes anything.
func Verify(ctx context.Context, cfg *config.Config, env VerifyEnv) *VerifyReport {
	v := &verifier{cfg: cfg, env: env, p: state.PathsOf(cfg), r: &VerifyReport{Now: env.Now.UTC()}}
	v.live = liveReport(cfg, v.p, env.Now)
	v.installed()
	v.serviceSettings()
	if err := state.Readable(v.p); err != nil {
		// Nothing below can be judged: each claim is a FAIL that says why,
		// never a PASS on evidence that could not be read.
		for _, name := range v.stateChecks() {
			v.add(name, Fail, "could not read: "+err.Error())
		}
		v.r.OK = false
		return v.r
	}
	// After the readability check: a reader who cannot look inside the state
	// dir cannot vouch for what is in it.
	v.stateTrusted()
	v.configTrusted()
	store, err := openForRead(v.p.DB())
	if err != nil {
		v.add("ledger readable", Fail, fmt.Sprintf("%s: %v", v.p.DB(), err))
	} else {
		defer store.Close()
		v.ledger(ctx, store)
		v.startedSinceBoot(ctx, store)
		v.heartbeat(ctx, store)
	}
	v.ledgerWrites()
	v.watchdogLast()
	v.servicesCycled(ctx, store)
	v.backstop()
	v.pauses()
	v.givenUp()
	v.removedRunning()
	v.strangers()
	v.ownership()
	v.crashLog()
	v.configInForce()
	v.secretsPrivate()
	if store != nil {
		v.missing(ctx, store)
		v.channels(ctx, store)
	}
	v.nameCause()
	v.r.OK = true
	for _, c := range v.r.Checks {
		if c.Status == Fail {
			v.r.OK = false
		}
	}
	return v.r
}

// stateChecks names every check made from the state dir, in order.
func (v *verifier) stateChecks() []string {
	names := []string{checkStateTrusted, "ledger readable", "agent started since boot", "heartbeat fresh", "watchdog.last.json fresh"}
	for _, s := range v.cfg.Services {
		names = append(names, "service "+s.Name+" cycled")
	}
	names = append(names, "no forgotten pause", "no given-up service", checkStrangers, checkOwnership, "no unread crash.log")
	if len(v.cfg.Jobs) > 0 {
		names = append(names, "no missing runs (24 h)")
	}
	return names
}

// couldNotRead is the evidence of a check whose file exists but cannot be
// read: a FAIL, never a PASS.
func couldNotRead(path string, err error) string {
	return "could not read: " + state.Denied(path, err).Error()
}

type verifier struct {
	cfg  *config.Config
	env  VerifyEnv
	p    state.Paths
	r    *VerifyReport
	live *state.AgentReport // the running agent's agent.status; nil when none
}

// checkLedgerWrites is the name of the check that the running agent can
// write its ledger.
const checkLedgerWrites = "ledger writable"

// ledgerWrites checks, by the running agent's own report, that it can
// write run_trace. Without a running agent there is nothing to ask (the
// heartbeat check fails then).
func (v *verifier) ledgerWrites() {
	if v.live == nil {
		return
	}
	h := v.live.Ledger
	if h.Up {
		v.add(checkLedgerWrites, Pass, fmt.Sprintf("the agent (pid %d) writes it (agent.status renewed %s ago)",
			v.live.PID, v.env.Now.Sub(v.live.UpdatedAt).Round(time.Second)))
		return
	}
	v.add(checkLedgerWrites, Fail, fmt.Sprintf("WRITE FAILING since %s: %s; %s", h.Since.Format(time.RFC3339), h.Summary(), h.Cause.Fix()))
}

// nameCause adds the cause to every failed check when the agent cannot
// write: a stale heartbeat or an old watchdog.last.json is then not a dead
// agent but a full disk (or whatever the cause is), and says so.
func (v *verifier) nameCause() {
	if v.live == nil || v.live.Ledger.Up {
		return
	}
	h := v.live.Ledger
	cause := fmt.Sprintf("cause: the agent (pid %d, alive: agent.status renewed %s ago) cannot write to %s since %s: %s",
		v.live.PID, v.env.Now.Sub(v.live.UpdatedAt).Round(time.Second), h.Dir, h.Since.Format(time.RFC3339), h.Cause.Words())
	for i := range v.r.Checks {
		c := &v.r.Checks[i]
		if c.Status == Fail && writtenEvidence(c.Name) {
			c.Evidence += "; " + cause
		}
	}
}

// CheckInstalled is the name of the check that the agent is an OS service.
const CheckInstalled = "agent installed"

// ChecksAnEventSays reports whether a check's FAIL is news the agent also
// sends as an event of its own (job.missing, service.given-up).
func ChecksAnEventSays(check string) bool {
	return check == "no missing runs (24 h)" || check == "no given-up service"
}

// ChecksTheRunningAgent reports whether a check judges the freshness of the
// running agent's own evidence (its heartbeat, its cycles): the agent that
// runs verify at its start (agent.Options.StartChecks) is alive by
// definition, and its first cycles may not have come yet.
func ChecksTheRunningAgent(check string) bool {
	switch check {
	case "heartbeat fresh", "watchdog.last.json fresh":
		return true
	}
	return strings.HasPrefix(check, "service ") && strings.HasSuffix(check, " cycled")
}

// writtenEvidence reports whether a check judges evidence the agent writes
// (rows, the heartbeat, watchdog.last.json): a ledger or a disk that refuses
// writes can fail it. "Not installed" or "given up" it cannot explain.
func writtenEvidence(check string) bool {
	switch check {
	case "heartbeat fresh", "watchdog.last.json fresh", "agent started since boot", "backstop ran recently", "no missing runs (24 h)":
		return true
	}
	return strings.HasPrefix(check, "service ") && strings.HasSuffix(check, " cycled")
}

func (v *verifier) add(name, status, evidence string) {
	v.r.Checks = append(v.r.Checks, Check{Name: name, Status: status, Evidence: evidence})
}

func (v *verifier) installed() {
	i := v.env.Install
	switch {
	case !i.Known:
		v.add("agent installed", Warn, "could not ask the service manager: "+i.Detail)
	case !i.Installed:
		v.add("agent installed", Fail, "no svc-ctl OS service is installed ("+i.Platform+"): run 'svc-ctl install'; without it nothing starts the agent after a reboot")
	case i.Enabled != nil && !*i.Enabled:
		v.add("agent installed", Fail, fmt.Sprintf("installed as %s (%s) but NOT enabled: it runs until the next reboot and then never again; enable it (systemctl enable svc-ctl.service, or 'svc-ctl uninstall' then 'svc-ctl install')", i.Mode, i.Platform))
	default:
		v.add("agent installed", Pass, fmt.Sprintf("installed as %s (%s)%s", i.Mode, i.Platform, suffix(i.Detail)))
	}
}

// checkConfigTrusted is the name of the check that the config, and every
// env_file and secret file it names, only administrators can change.
const checkConfigTrusted = "config trusted"

// configTrusted is the one trust rule of a privileged svc-ctl, judged: the
// agent and every verb that acts refuse a file others can write, and a
// reader as root answers from the state dir alone (cmd's untrusted.go),
// so verify must not pass it.
func (v *verifier) configTrusted() {
	if config.UserMode() || v.cfg.Path == "" {
		return
	}
	if _, err := os.Stat(v.cfg.Path); err != nil {
		return
	}
	err := config.CheckPermissions(v.cfg.Path)
	if err == nil {
		err = v.cfg.CheckTrusted()
	}
	if err != nil {
		v.add(checkConfigTrusted, Fail, strings.ReplaceAll(err.Error(), "\n", "; ")+
			"; until it is fixed the agent and every verb that acts refuse it, and readers as root answer from the state dir alone")
		return
	}
	v.add(checkConfigTrusted, Pass, v.cfg.Path+": root's, writable by no one else, as is every env_file and secret file it names")
}

// checkStateTrusted is the name of the check that the state dir passes the
// check every verb that acts makes first (state.Check).
const checkStateTrusted = "state dir trusted"

// stateTrusted runs state.Check's verdict, read-only: a planted link or a
// file another user can write makes every privileged verb refuse the state
// dir and the agent lose evidence at its next restart (a snapshot it will
// not write through a link), so verify must not pass it.
func (v *verifier) stateTrusted() {
	privileged := !config.UserMode()
	if err := state.CheckExisting(v.p, privileged); err != nil {
		v.add(checkStateTrusted, Fail, strings.ReplaceAll(err.Error(), "\n", "; ")+
			"; until it is fixed every verb that acts (start, stop, restart, drill, the agent's next start) refuses the state dir")
		return
	}
	how := "owned by this user, no link, nothing another user can write"
	if !privileged {
		how = "a directory, not a link"
	}
	v.add(checkStateTrusted, Pass, v.p.State+": "+how)
}

// serviceSettings repeats, from what the service manager holds now, each
// optional setting install could not apply: one WARN per setting, so that a
// person (and the Windows harness) can tell them apart.
func (v *verifier) serviceSettings() {
	i := v.env.Install
	const name = "service manager settings"
	switch {
	case !i.Known || !i.Installed:
	case i.SettingsError != "":
		v.add(name, Warn, "could not read them back: "+i.SettingsError)
	case !i.SettingsChecked:
	case len(i.SettingWarnings) == 0:
		v.add(name, Pass, "every setting install applies is held")
	default:
		for _, w := range i.SettingWarnings {
			v.add(name, Warn, w)
		}
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

func (v *verifier) ledger(ctx context.Context, store *runtrace.Store) {
	if err := store.IntegrityCheck(ctx); err != nil {
		v.add("ledger readable", Fail, err.Error())
		return
	}
	v.add("ledger readable", Pass, v.p.DB()+" passes quick_check")
}

// startedSinceBoot is the L1 proof: the agent's newest startup row is newer
// than the host's boot, so something started it after the boot — autostart
// fired. "The unit file exists" proves nothing.
func (v *verifier) startedSinceBoot(ctx context.Context, store *runtrace.Store) {
	rs, err := store.Runs(ctx, runtrace.Filter{JobID: "agent", Reason: runtrace.ReasonStarted, Limit: 1})
	switch {
	case err != nil:
		v.add("agent started since boot", Fail, "read startup rows: "+err.Error())
	case len(rs) == 0:
		v.add("agent started since boot", Fail, "no agent startup row in run_trace: the agent has never run with this state dir")
	case v.env.BootTime.IsZero():
		v.add("agent started since boot", Warn, "host boot time unknown; last agent start "+rs[0].StartedAt.Format(time.RFC3339))
	case rs[0].StartedAt.Before(v.env.BootTime.Add(-2 * time.Second)):
		v.add("agent started since boot", Fail, fmt.Sprintf("last agent start %s is before the host's boot at %s: autostart did not fire",
			rs[0].StartedAt.Format(time.RFC3339), v.env.BootTime.Format(time.RFC3339)))
	default:
		v.add("agent started since boot", Pass, fmt.Sprintf("agent started %s, host booted %s (%s later)",
			rs[0].StartedAt.Format(time.RFC3339), v.env.BootTime.Format(time.RFC3339), rs[0].StartedAt.Sub(v.env.BootTime).Round(time.Second)))
	}
}

func (v *verifier) heartbeat(ctx context.Context, store *runtrace.Store) {
	hbs, err := store.Heartbeats(ctx)
	limit := 3*v.cfg.Agent.Heartbeat + 5*time.Second
	switch {
	case err != nil:
		v.add("heartbeat fresh", Fail, err.Error())
	case len(hbs) == 0:
		v.add("heartbeat fresh", Fail, "no heartbeat: the agent is not running (a clean stop deletes it)")
	case v.env.Now.Sub(hbs[0].BeatAt) > limit && v.live != nil && !v.live.Ledger.Up:
		v.add("heartbeat fresh", Fail, fmt.Sprintf("heartbeat of pid %d is %s old (renewed every %s): not renewed",
			hbs[0].PID, v.env.Now.Sub(hbs[0].BeatAt).Round(time.Second), v.cfg.Agent.Heartbeat))
	case v.env.Now.Sub(hbs[0].BeatAt) > limit:
		v.add("heartbeat fresh", Fail, fmt.Sprintf("heartbeat of pid %d is %s old (renewed every %s): the agent is stale",
			hbs[0].PID, v.env.Now.Sub(hbs[0].BeatAt).Round(time.Second), v.cfg.Agent.Heartbeat))
	default:
		v.add("heartbeat fresh", Pass, fmt.Sprintf("pid %d, %s, %s ago", hbs[0].PID, hbs[0].Mode, v.env.Now.Sub(hbs[0].BeatAt).Round(time.Second)))
	}
}

func (v *verifier) shortestInterval() time.Duration {
	var d time.Duration
	for _, s := range v.cfg.Services {
		if d == 0 || s.Interval < d {
			d = s.Interval
		}
	}
	return d
}

func (v *verifier) watchdogLast() {
	if len(v.cfg.Services) == 0 {
		v.add("watchdog.last.json fresh", Pass, "no services configured")
		return
	}
	st, err := os.Stat(v.p.WatchdogLast())
	limit := 2 * v.shortestInterval()
	switch {
	case err != nil:
		v.add("watchdog.last.json fresh", Fail, "no "+v.p.WatchdogLast()+": no cycle has ever run")
	case v.env.Now.Sub(st.ModTime()) > limit:
		v.add("watchdog.last.json fresh", Fail, fmt.Sprintf("last written %s ago, more than twice the shortest interval (%s)",
			v.env.Now.Sub(st.ModTime()).Round(time.Second), limit))
	default:
		v.add("watchdog.last.json fresh", Pass, fmt.Sprintf("written %s ago", v.env.Now.Sub(st.ModTime()).Round(time.Second)))
	}
}

func (v *verifier) servicesCycled(ctx context.Context, store *runtrace.Store) {
	last, _ := state.ReadLast(v.p.WatchdogLast())
	for _, s := range v.cfg.Services {
		name := "service " + s.Name + " cycled"
		at := time.Time{}
		if lr := last.Services[s.Name]; lr != nil {
			at = lr.Time
		}
		if store != nil {
			if r, err := store.Latest(ctx, runtrace.WatchdogID(s.Name)); err == nil && r != nil && r.StartedAt.After(at) {
				at = r.StartedAt
			}
		}
		st, _ := state.LoadService(v.p.StateFile(s.Name))
		switch {
		case at.IsZero():
			v.add(name, Fail, "no cycle recorded")
		case v.env.Now.Sub(at) > 2*s.Interval+s.StartTimeout+s.Health.Confirm:
			v.add(name, Fail, fmt.Sprintf("last cycle %s ago, more than two intervals (%s)", v.env.Now.Sub(at).Round(time.Second), 2*s.Interval))
		case st.LastHealthy.IsZero():
			// Cycling is not the claim: a service that has never once been
			// healthy is not supervised into working, whatever its rows say.
			status := Fail
			if p, _ := state.ReadPause(v.p.Paused(s.Name)); p.Active(v.env.Now) {
				status = Warn
			}
			v.add(name, status, fmt.Sprintf("cycles (last %s ago, state %s) but has never been healthy: 'svc-ctl why %s'",
				v.env.Now.Sub(at).Round(time.Second), st.State, s.Name))
		default:
			v.add(name, Pass, fmt.Sprintf("last cycle %s ago (interval %s)", v.env.Now.Sub(at).Round(time.Second), s.Interval))
		}
	}
}

func (v *verifier) backstop() {
	i := v.env.Install
	if !i.BackstopKnown || !i.BackstopInstalled {
		return // optional: checked only where installed
	}
	st, err := os.Stat(v.p.WatchdogLast())
	every := i.BackstopEvery
	if every <= 0 {
		every = 10 * time.Minute
	}
	if err != nil || v.env.Now.Sub(st.ModTime()) > 2*every {
		v.add("backstop ran recently", Fail, "backstop registered ("+i.BackstopDetail+") but no cycle written within two of its periods")
		return
	}
	v.add("backstop ran recently", Pass, "registered ("+i.BackstopDetail+")")
}

func (v *verifier) pauses() {
	bad := ""
	unread := ""
	check := func(kind, name, path string) {
		p, err := state.ReadPause(path)
		if errors.Is(err, fs.ErrPermission) {
			unread += couldNotRead(path, err) + "; "
			return
		}
		if p != nil && p.Until == nil && v.env.Now.Sub(p.At) > 24*time.Hour {
			bad += fmt.Sprintf("%s %s paused %s ago without expiry (reason %q, by %s); ", kind, name, v.env.Now.Sub(p.At).Round(time.Hour), p.Reason, p.By)
		}
	}
	for _, s := range v.cfg.Services {
		check("service", s.Name, v.p.Paused(s.Name))
	}
	for _, j := range v.cfg.Jobs {
		check("job", j.Name, v.p.JobPaused(j.Name))
	}
	if unread != "" {
		v.add("no forgotten pause", Fail, unread)
		return
	}
	if bad != "" {
		v.add("no forgotten pause", Warn, bad+"resume or pause again with --for")
		return
	}
	v.add("no forgotten pause", Pass, "no pause older than 24 h without an expiry")
}

func (v *verifier) givenUp() {
	bad := ""
	for _, s := range v.cfg.Services {
		st, err := state.LoadService(v.p.StateFile(s.Name))
		if errors.Is(err, fs.ErrPermission) {
			v.add("no given-up service", Fail, couldNotRead(v.p.StateFile(s.Name), err))
			return
		}
		if st.State == state.GivenUp {
			bad += fmt.Sprintf("%s gave up after %d failed starts; ", s.Name, st.Failures)
		}
	}
	if bad != "" {
		v.add("no given-up service", Fail, bad+"see 'svc-ctl why', fix, then 'svc-ctl resume'")
		return
	}
	v.add("no given-up service", Pass, "none")
}

// removedRunning WARNs of a service a reload removed from the config while
// its processes were kept: it runs unsupervised, and nothing else says so.
func (v *verifier) removedRunning() {
	bad := ""
	for _, r := range removedServices(v.p, v.env.Now) {
		if r.Processes > 0 && v.cfg.Service(r.Name) == nil {
			bad += fmt.Sprintf("%s (pid %d) was removed from the config by a reload at %s and still runs, unsupervised; ",
				r.Name, r.PID, r.At.Format(time.RFC3339))
		}
	}
	if bad != "" {
		v.add("no unsupervised leftovers", Warn, bad+"'svc-ctl stop NAME' stops it")
		return
	}
	v.add("no unsupervised leftovers", Pass, "no removed service left running")
}

// checkStrangers is the name of the check that no service's health check
// was last answered by a process that is not the service (watchdog,
// stranger.go).
const checkStrangers = "no stranger on a health port"

// strangers FAILs a service whose last passing probe a stranger answered:
// its clients talk to another program.
func (v *verifier) strangers() {
	bad := ""
	for _, s := range v.cfg.Services {
		st, err := state.LoadService(v.p.StateFile(s.Name))
		if errors.Is(err, fs.ErrPermission) {
			v.add(checkStrangers, Fail, couldNotRead(v.p.StateFile(s.Name), err))
			return
		}
		if st.AnsweredBy != "" {
			bad += fmt.Sprintf("%s: its health check passes, but %s; ", s.Name, st.AnsweredBy)
		}
	}
	if bad != "" {
		v.add(checkStrangers, Fail, bad+"stop that process, then 'svc-ctl start NAME'")
		return
	}
	v.add(checkStrangers, Pass, "every passing health check was answered by its own service (or one svc-ctl never started)")
}

const checkOwnership = "every instance owned"

// ownership says, per service with a recorded instance, what owns its tree
// (its mode): a cgroup, the agent as subreaper, a job object, or the record
// alone ("plain": an instance a person started with no agent running, or
// any on macOS), and WARNs where ownership is weaker than this host allows:
// a plain instance on Linux, or a record of an older svc-ctl that remembers
// no members. docs/architecture.md says what each mode can see.
func (v *verifier) ownership() {
	var parts, weak []string
	for _, s := range v.cfg.Services {
		inst, err := proc.ReadInstance(v.p.Pid(s.Name))
		if err != nil {
			continue
		}
		switch mode := inst.Mode; {
		case mode == "":
			weak = append(weak, s.Name+": a record of an older svc-ctl (its session alone): 'svc-ctl restart "+s.Name+"' records its members")
		case mode == proc.ModePlain && runtime.GOOS == "linux":
			weak = append(weak, s.Name+": plain (started with no agent running, or by an agent that is no subreaper): "+
				"a daemon that leaves its tree and writes over its environment is not seen; restart it while the agent runs")
		default:
			parts = append(parts, s.Name+": "+mode)
		}
	}
	switch {
	case len(weak) > 0:
		v.add(checkOwnership, Warn, strings.Join(append(weak, parts...), "; "))
	case len(parts) > 0:
		v.add(checkOwnership, Pass, strings.Join(parts, "; "))
	}
}

func (v *verifier) crashLog() {
	st, err := os.Stat(v.p.CrashLog())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		v.add("no unread crash.log", Fail, couldNotRead(v.p.CrashLog(), err))
		return
	}
	if err == nil && st.Size() > 0 {
		v.add("no unread crash.log", Fail, fmt.Sprintf("%s holds a fatal crash of the agent (%s); the next agent start reports it", v.p.CrashLog(), st.ModTime().UTC().Format(time.RFC3339)))
		return
	}
	v.add("no unread crash.log", Pass, "none")
}

func (v *verifier) missing(ctx context.Context, store *runtrace.Store) {
	if len(v.cfg.Jobs) == 0 {
		return
	}
	ms, err := Missing(ctx, store, v.cfg, nil, v.env.Now.Add(-24*time.Hour), v.env.Now)
	switch {
	case err != nil:
		v.add("no missing runs (24 h)", Fail, err.Error())
	case len(ms) > 0:
		v.add("no missing runs (24 h)", Fail, fmt.Sprintf("%s with no row, first %s at %s: 'svc-ctl missing'", words.Count(len(ms), "slot", "slots"), ms[0].Job, ms[0].Slot.Format(time.RFC3339)))
	default:
		v.add("no missing runs (24 h)", Pass, "every due slot has a row")
	}
}

// channelFailingLong is how long a channel may fail before verify says FAIL:
// a day of undelivered messages is a day of nobody being told.
const channelFailingLong = 24 * time.Hour

// channels: WARN on a channel (or ping) whose last delivery failed, FAIL
// when it has been failing for more than a day.
func (v *verifier) channels(ctx context.Context, store *runtrace.Store) {
	for _, c := range channelStatuses(ctx, v.cfg, store) {
		name := "channel " + c.Name
		switch {
		case c.FailingSince.IsZero() && c.LastOK.IsZero():
			v.add(name, Pass, "no delivery yet ('svc-ctl notify test' tries one)")
		case c.FailingSince.IsZero():
			v.add(name, Pass, "last delivery "+c.LastOK.Local().Format(time.RFC3339))
		case v.env.Now.Sub(c.FailingSince) > channelFailingLong:
			v.add(name, Fail, fmt.Sprintf("failing since %s (%d waiting): %s; 'svc-ctl notify list', 'svc-ctl notify test %s'",
				c.FailingSince.Local().Format(time.RFC3339), c.Pending, c.LastError, strings.TrimPrefix(c.Name, "ping:")))
		default:
			v.add(name, Warn, fmt.Sprintf("last delivery failed at %s (%d waiting; retried): %s",
				c.LastErrorAt.Local().Format(time.RFC3339), c.Pending, c.LastError))
		}
	}
}

// configInForce warns when the running agent's config is not the file on
// disk: changed since it was loaded, or reloaded with parts that need an
// agent restart.
func (v *verifier) configInForce() {
	if v.live == nil || v.live.Config == nil {
		return // no running agent to compare with (the heartbeat check says so)
	}
	if d := configDrift(v.cfg, v.live); d != nil {
		v.add("config in force", Warn, d.Words)
		return
	}
	if v.live.Config.Path != v.cfg.Path {
		v.add("config in force", Warn, fmt.Sprintf("the agent runs %s, not %s", v.live.Config.Path, v.cfg.Path))
		return
	}
	v.add("config in force", Pass, fmt.Sprintf("the agent runs %s as it is on disk (loaded %s)", v.cfg.Path, v.live.Config.LoadedAt.Format(time.RFC3339)))
}

// checkSecretsPrivate is the line about who can read the secrets of the
// config file: notification secrets and the values of env written in it;
// only for a config that has some.
const checkSecretsPrivate = "secrets private"

// secretsPrivate warns when the config holds secrets (notification keys,
// env values) that other users can read, naming the keys (never the
// values) and the fix.
func (v *verifier) secretsPrivate() {
	if len(v.cfg.SecretKeys()) == 0 {
		return
	}
	words, err := v.cfg.SecretsExposed()
	switch {
	case err != nil:
		v.add(checkSecretsPrivate, Warn, err.Error())
	case words != "":
		v.add(checkSecretsPrivate, Warn, words)
	default:
		v.add(checkSecretsPrivate, Pass, "other users cannot read "+v.cfg.Path)
	}
}
