package winsvc

import (
	"strings"
	"testing"
	"time"
)

// An SCM without the failure-actions flag (Wine 8) gets the install done with
// a warning that names the setting and what the service lacks.
func TestApplyWarnsOfAnUnsupportedOptionalSetting(t *testing.T) {
	for _, m := range []string{"noncrash", "preshutdown"} {
		rec := &recordingSCM{unsupported: m}
		useSCM(t, rec)
		warns, err := Apply("svc-ctl", DefaultSettings(30*time.Second))
		if err != nil {
			t.Fatalf("%s unsupported: Apply = %v, want no error", m, err)
		}
		if len(warns) != 1 || !strings.Contains(warns[0].String(), "Invalid level.") || warns[0].Lacks == "" {
			t.Fatalf("%s unsupported: warnings %v, want one naming the SCM's answer and what is lacking", m, warns)
		}
		if got := strings.Join(rec.calls, " "); got != "recovery:svc-ctl noncrash:svc-ctl preshutdown:svc-ctl" {
			t.Errorf("calls = %q: every setting must still be tried", got)
		}
	}
}

// A refusal is an error, for the optional settings too; the recovery actions
// themselves are never optional.
func TestApplyRefusalsAreErrors(t *testing.T) {
	for _, m := range []string{"recovery", "noncrash", "preshutdown"} {
		useSCM(t, &recordingSCM{failOn: m + ":svc-ctl"})
		warns, err := Apply("svc-ctl", DefaultSettings(30*time.Second))
		if err == nil || !strings.Contains(err.Error(), "access is denied") || len(warns) != 0 {
			t.Errorf("%s refused: Apply = %v, %v; want the refusal as an error", m, warns, err)
		}
	}
	useSCM(t, &recordingSCM{unsupported: "recovery"})
	if _, err := Apply("svc-ctl", DefaultSettings(30*time.Second)); err == nil {
		t.Error("recovery actions unsupported: Apply succeeded, want an error (the SCM would never restart the agent)")
	}
}

// Check judges by what the SCM holds now: unsupported, different or as asked.
func TestCheckReadsTheSettingsBack(t *testing.T) {
	want := DefaultSettings(30 * time.Second)
	cases := []struct {
		rec   recordingSCM
		warns int
		word  string
	}{
		{recordingSCM{readCrash: true, readPreSD: want.PreshutdownTimeout}, 0, ""},
		{recordingSCM{unsupported: "noncrash", readPreSD: want.PreshutdownTimeout}, 1, "SERVICE_CONFIG_FAILURE_ACTIONS_FLAG"},
		{recordingSCM{readCrash: false, readPreSD: want.PreshutdownTimeout}, 1, "run svc-ctl install again"},
		{recordingSCM{readCrash: true, readPreSD: time.Second}, 1, "SERVICE_CONFIG_PRESHUTDOWN_INFO"},
	}
	for i, c := range cases {
		rec := c.rec
		useSCM(t, &rec)
		warns, err := Check("svc-ctl", want)
		if err != nil || len(warns) != c.warns {
			t.Errorf("case %d: Check = %v, %v; want %d warnings", i, warns, err, c.warns)
			continue
		}
		if c.word != "" && !strings.Contains(warns[0].String(), c.word) {
			t.Errorf("case %d: warning %q lacks %q", i, warns[0], c.word)
		}
	}
	useSCM(t, &recordingSCM{failOn: "noncrash:svc-ctl"})
	if _, err := Check("svc-ctl", want); err == nil {
		t.Error("a refused read is not an error")
	}
}
