package ui

import (
	"context"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/report"
	"svcctl/runtrace"
)

// reload is what cmd gives the page: the checked load, and when the file's
// contents do not load, what the state dir alone says.
func (pg *page) reload(ctx context.Context) (*config.Config, error) {
	cfg, err := config.LoadToRun(pg.cfg.Path)
	if err == nil {
		return cfg, nil
	}
	if len(config.Errors(err)) == 0 {
		return nil, err
	}
	scfg, serr := report.StateOnlyConfig(ctx, pg.cfg.Path, pg.p.State)
	if serr != nil {
		return nil, errors.Join(err, serr)
	}
	return scfg, err
}

func names[T any](xs []T, name func(T) string) []string {
	var out []string
	for _, x := range xs {
		out = append(out, name(x))
	}
	return out
}

func jobNames(p Page) []string { return names(p.Jobs, func(j JobView) string { return j.Name }) }
func serviceNames(p Page) []string {
	return names(p.Services, func(s ServiceView) string { return s.Name })
}

// TestPageFollowsTheConfigFile: a running page reads the file again when
// it changes. A job added appears (in the state and the timeline); a file
// that breaks shows its errors in config_error while the page answers from
// the state dir, and actions are refused with 409 and the file's problems;
// the fixed file clears config_error and actions work again.
func TestPageFollowsTheConfigFile(t *testing.T) {
	pg := newPageWith(t, func(pg *page, o *Options) { o.Reload = pg.reload })
	// A row of web's, as any cycle writes: what the state dir knows of it
	// when the file no longer says.
	if _, err := pg.store.Record(t.Context(), runtrace.Run{JobID: "watchdog:web", Trigger: runtrace.TriggerSchedule,
		StartedAt: time.Now(), Outcome: runtrace.OutcomeOK, Reason: runtrace.ReasonAlreadyRunning}); err != nil {
		t.Fatal(err)
	}
	var p Page
	pg.getJSON("/api/state", &p)
	if p.ConfigError != "" || p.ConfigShown != ShownFile || !slices.Equal(jobNames(p), []string{"pull"}) {
		t.Fatalf("first state: config_error %q, shown %q, jobs %v", p.ConfigError, p.ConfigShown, jobNames(p))
	}
	good, err := os.ReadFile(pg.cfg.Path)
	if err != nil {
		t.Fatal(err)
	}
	withNightly := append(good, "\n[[job]]\nname = \"nightly\"\nschedule = \"0 3 * * *\"\ntimezone = \"UTC\"\ncommand = [\""+
		strings.ReplaceAll(testsvcBin, `\`, `\\`)+"\", \"--exit-now\", \"0\"]\n"...)
	if err := os.WriteFile(pg.cfg.Path, withNightly, 0o600); err != nil {
		t.Fatal(err)
	}
	p = Page{}
	pg.getJSON("/api/state", &p)
	if p.ConfigError != "" || !slices.Equal(jobNames(p), []string{"pull", "nightly"}) {
		t.Fatalf("after a job was added to the file: config_error %q, jobs %v, want pull and nightly", p.ConfigError, jobNames(p))
	}
	var tl Timeline
	pg.getJSON("/api/timeline?range=1h", &tl)
	if !slices.Contains(names(tl.Strips, func(s Strip) string { return s.Name }), "nightly") {
		t.Errorf("the timeline has no strip for the added job: %v", names(tl.Strips, func(s Strip) string { return s.Name }))
	}

	// Break it: a string left open.
	if err := os.WriteFile(pg.cfg.Path, append(withNightly, "\n[[service]]\nname = \"half\nwritten\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	p = Page{}
	pg.getJSON("/api/state", &p)
	if p.ConfigError == "" || !strings.Contains(p.ConfigError, pg.cfg.Path) || p.ConfigShown != ShownStateDir {
		t.Fatalf("broken file: config_error %q, shown %q; want the file's errors, naming it, and the state dir's view", p.ConfigError, p.ConfigShown)
	}
	if !slices.Contains(serviceNames(p), "web") {
		t.Errorf("broken file: services %v, want web as the state dir recorded it", serviceNames(p))
	}
	if resp := pg.get("/api/detail?name=web"); resp.StatusCode != http.StatusOK {
		t.Errorf("detail of web with the file broken: %d", resp.StatusCode)
	}
	resp, body := pg.post("pause", `{"name":"web","reason":"disk swap"}`)
	if resp.StatusCode != http.StatusConflict || !strings.Contains(body, `"config_errors":["`) || !strings.Contains(body, "does not load") {
		t.Fatalf("pause with the file broken = %d %s, want 409 with the file's errors", resp.StatusCode, body)
	}
	if _, err := os.Stat(pg.p.Paused("web")); err == nil {
		t.Fatal("the refused pause wrote its sentinel")
	}

	// Fixed: the file's view is back, and so are actions.
	if err := os.WriteFile(pg.cfg.Path, withNightly, 0o600); err != nil {
		t.Fatal(err)
	}
	p = Page{}
	pg.getJSON("/api/state", &p)
	if p.ConfigError != "" || p.ConfigShown != ShownFile || !slices.Equal(jobNames(p), []string{"pull", "nightly"}) {
		t.Fatalf("after the fix: config_error %q, shown %q, jobs %v", p.ConfigError, p.ConfigShown, jobNames(p))
	}
	if resp, body := pg.post("pause", `{"name":"web","reason":"disk swap"}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("pause after the fix = %d %s", resp.StatusCode, body)
	}
}

// TestPageKeepsItsViewWhenTheFileIsGone: a file that cannot be read at all
// leaves the page showing what it showed, saying why in config_error.
func TestPageKeepsItsViewWhenTheFileIsGone(t *testing.T) {
	pg := newPageWith(t, func(pg *page, o *Options) { o.Reload = pg.reload })
	good, err := os.ReadFile(pg.cfg.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(pg.cfg.Path); err != nil {
		t.Fatal(err)
	}
	var p Page
	pg.getJSON("/api/state", &p)
	if p.ConfigError == "" || p.ConfigShown != ShownPrevious || !slices.Equal(jobNames(p), []string{"pull"}) || !slices.Contains(serviceNames(p), "web") {
		t.Fatalf("file gone: config_error %q, shown %q, services %v, jobs %v; want the view kept and why", p.ConfigError, p.ConfigShown, serviceNames(p), jobNames(p))
	}
	if err := os.WriteFile(pg.cfg.Path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	p = Page{}
	pg.getJSON("/api/state", &p)
	if p.ConfigError != "" || p.ConfigShown != ShownFile {
		t.Fatalf("file back: config_error %q, shown %q", p.ConfigError, p.ConfigShown)
	}
}
