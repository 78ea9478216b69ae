package report

import (
	"context"
	"fmt"
	"strings"
	"time"

	"svcctl/config"
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
