package winsvc

import (
	"errors"
	"strings"
	"testing"
	"time"

	"svcctl/internal/testkit"
)

// recordingSCM records each call at the seam; failOn names a method that
// returns an error.
type recordingSCM struct {
	calls  []string
	delays []time.Duration
	reset  time.Duration
	crash  bool
	preSD  time.Duration
	failOn string
	// unsupported names a method whose setting this SCM does not know (the
	// answer Wine 8 gives for the failure-actions flag)
	unsupported string
	readCrash   bool
	readPreSD   time.Duration
}

func (r *recordingSCM) fail(m string) error {
	r.calls = append(r.calls, m)
	if r.failOn == m {
		return errors.New("access is denied")
	}
	if r.unsupported != "" && strings.HasPrefix(m, r.unsupported+":") {
		return unsupported{errors.New("Invalid level.")}
	}
	return nil
}

func (r *recordingSCM) setRecoveryActions(name string, d []time.Duration, reset time.Duration) error {
	r.delays, r.reset = append([]time.Duration(nil), d...), reset
	return r.fail("recovery:" + name)
}
func (r *recordingSCM) setRecoveryOnNonCrashFailures(name string, on bool) error {
	r.crash = on
	return r.fail("noncrash:" + name)
}
func (r *recordingSCM) setPreshutdownTimeout(name string, d time.Duration) error {
	r.preSD = d
	return r.fail("preshutdown:" + name)
}
func (r *recordingSCM) recoveryOnNonCrashFailures(name string) (bool, error) {
	return r.readCrash, r.fail("noncrash:" + name)
}
func (r *recordingSCM) preshutdownTimeout(name string) (time.Duration, error) {
	return r.readPreSD, r.fail("preshutdown:" + name)
}
func (r *recordingSCM) binaryPath(name string) (string, error) {
	return `"C:\Program Files\svc-ctl\svc-ctl.exe" agent`, r.fail("binpath:" + name)
}

func useSCM(t *testing.T, r *recordingSCM) {
	t.Helper()
	testkit.Replace[scm](t, &scmAPI, r)
}

func TestConfigureAppliesRecoveryAtTheSeam(t *testing.T) {
	rec := &recordingSCM{}
	useSCM(t, rec)
	if err := Configure("svc-ctl", DefaultSettings(30*time.Second)); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	want := []time.Duration{5 * time.Second, 30 * time.Second, 60 * time.Second}
	if len(rec.delays) != len(want) {
		t.Fatalf("restart delays = %v, want %v", rec.delays, want)
	}
	for i := range want {
		if rec.delays[i] != want[i] {
			t.Errorf("restart delay %d = %s, want %s", i+1, rec.delays[i], want[i])
		}
	}
	if rec.reset != 24*time.Hour {
		t.Errorf("reset period = %s, want 24h (one day)", rec.reset)
	}
	if !rec.crash {
		t.Error("recovery on non-crash failures not enabled: an agent exiting 1 would not be restarted")
	}
	if rec.preSD <= 30*time.Second {
		t.Errorf("preshutdown timeout %s does not exceed drain_timeout 30s", rec.preSD)
	}
	wantCalls := "recovery:svc-ctl noncrash:svc-ctl preshutdown:svc-ctl"
	if got := strings.Join(rec.calls, " "); got != wantCalls {
		t.Errorf("calls = %q, want %q", got, wantCalls)
	}
}

func TestConfigureReportsEveryRefusal(t *testing.T) {
	rec := &recordingSCM{failOn: "recovery:svc-ctl"}
	useSCM(t, rec)
	err := Configure("svc-ctl", DefaultSettings(time.Minute))
	if err == nil || !strings.Contains(err.Error(), `set recovery actions of service "svc-ctl": access is denied`) {
		t.Fatalf("err = %v, want the refused setting named", err)
	}
	if len(rec.calls) != 3 {
		t.Errorf("calls after a refusal = %v, want all three settings tried", rec.calls)
	}
}

func TestConfigureRefusesInvalidSettings(t *testing.T) {
	rec := &recordingSCM{}
	useSCM(t, rec)
	s := DefaultSettings(time.Second)
	s.RestartDelays = nil
	if err := Configure("svc-ctl", s); err == nil {
		t.Fatal("Configure accepted settings without recovery actions")
	}
	if len(rec.calls) != 0 {
		t.Errorf("SCM touched before validation: %v", rec.calls)
	}
}

func TestSCMStubOutsideWindows(t *testing.T) {
	if _, err := (systemSCM{}).binaryPath("x"); err == nil && !isWindows() {
		t.Fatal("stub SCM returned no error on a non-Windows OS")
	}
}

func TestSettingsString(t *testing.T) {
	got := DefaultSettings(30 * time.Second).String()
	for _, want := range []string{"restart after 5s, restart after 30s, restart after 1m0s", "(86400 s)", "non-crash failures: true", "preshutdown timeout: 45s"} {
		if !strings.Contains(got, want) {
			t.Errorf("settings text lacks %q:\n%s", want, got)
		}
	}
}
