package report

import (
	"context"
	"path/filepath"
	"testing"

	"svcctl/state"
)

// A reader that answers from the state dir alone (a config that does not
// load, or one a root reader must not trust) takes each service's log from
// the agent's record, not from the default: a log outside the state dir is
// still found, with the user it was written for.
func TestStateOnlyConfigTakesTheLogFromTheRecord(t *testing.T) {
	dir := realTemp(t) // the config canonicalizes the state dir (macOS: /var -> /private/var)
	p := state.Paths{State: dir}
	logPath := filepath.Join(t.TempDir(), "web.log")
	if err := state.SaveService(p.StateFile("web"), state.Service{State: state.Healthy, Log: logPath, User: "nobody"}, true); err != nil {
		t.Fatal(err)
	}
	if err := state.SaveService(p.StateFile("old"), state.Service{State: state.Healthy}, true); err != nil {
		t.Fatal(err)
	}
	cfg, err := StateOnlyConfig(context.Background(), "/nowhere/svc-ctl.toml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if s := cfg.Service("web"); s == nil || s.Log != logPath || s.RunAs.User != "nobody" {
		t.Fatalf("web = %+v: want the recorded log %s and user nobody", s, logPath)
	}
	if s := cfg.Service("old"); s == nil || s.Log != p.DefaultRuntimeLog("old") {
		t.Fatalf("a service without a record keeps the default log: %+v", s)
	}
}
