package notify

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"svcctl/config"
	"svcctl/runtrace"
)

func sample(kind string) *Event {
	e := &Event{ID: "0190-test", Kind: kind, Subject: "watchdog:proxy", Service: "proxy", Host: "ws-07",
		Message: "proxy on ws-07 is down: start-failed: tcp 127.0.0.1:8789: connection refused",
		Detail:  "exit code 1\nlisten tcp :8789: address already in use"}
	e.stamp(t0, time.UTC)
	return e
}

// TestKindsMatchConfig: every kind config accepts has a channel, and no
// channel exists that config would refuse.
// Every kind the config accepts has its channel here, and no other: the
// config's own list is the oracle.
func TestKindsMatchConfig(t *testing.T) {
	got := slices.Sorted(maps.Keys(kinds))
	want := slices.Sorted(slices.Values(config.NotifyKinds))
	if !slices.Equal(got, want) {
		t.Errorf("kinds %v, want config.NotifyKinds %v", got, want)
	}
}

func TestNtfy(t *testing.T) {
	rc := newReceiver(t, nil)
	n := channelConf("phone", config.NotifyNtfy, rc.srv.URL+"/svc-ctl-topic")
	n.Token, n.Tags = "tk_abc", []string{"ws"}
	ch, err := Open(&n)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{KindServiceDown, KindServiceGivenUp} {
		e := sample(kind)
		e.HeldBack = 2
		if err := ch.Send(ctxb, e); err != nil {
			t.Fatal(err)
		}
	}
	got := rc.got()
	down, givenUp := got[0], got[1]
	if down.Path != "/svc-ctl-topic" || down.Header.Get("Title") != "proxy down on ws-07" ||
		down.Header.Get("Priority") != "default" || down.Header.Get("Tags") != "warning,ws" ||
		down.Header.Get("Authorization") != "Bearer tk_abc" {
		t.Errorf("down: %s %v", down.Path, down.Header)
	}
	if body := string(down.Body); !strings.HasPrefix(body, sample(KindServiceDown).Message+" (2 more held back)\n\nexit code 1") {
		t.Errorf("body %q", body)
	}
	if givenUp.Header.Get("Priority") != "high" || givenUp.Header.Get("Title") != "proxy given up on ws-07" {
		t.Errorf("given-up: %v", givenUp.Header)
	}
}

func TestHealthchecksSignals(t *testing.T) {
	rc := newReceiver(t, nil)
	n := channelConf("fleet", config.NotifyHealthchecks, rc.srv.URL+"/ping/uuid-1")
	ch, _ := Open(&n)
	for _, kind := range []string{KindServiceDown, KindServiceRecovered, KindJobSkipped} {
		if err := ch.Send(ctxb, sample(kind)); err != nil {
			t.Fatal(err)
		}
	}
	var paths []string
	for _, r := range rc.got() {
		paths = append(paths, r.Path)
	}
	if want := []string{"/ping/uuid-1/fail", "/ping/uuid-1", "/ping/uuid-1/log"}; !slices.Equal(paths, want) {
		t.Errorf("paths %v, want %v", paths, want)
	}
	// A job's output tail: the last 10 KB, no more.
	long := strings.Repeat("x", 20_000) + "THE END"
	if err := Ping(ctxb, rc.srv.URL+"/ping/uuid-2/", SignalFail, "", long); err != nil {
		t.Fatal(err)
	}
	last := rc.got()[3]
	if last.Path != "/ping/uuid-2/fail" || len(last.Body) != maxPingBody || !strings.HasSuffix(string(last.Body), "THE END") {
		t.Errorf("fail ping: %s, %d bytes", last.Path, len(last.Body))
	}
}

// TestCommandChannel runs a real child (this test binary) that reads the
// event from stdin: exit 0 delivers, exit 1 is an error with its output,
// a child that does not finish is stopped at the timeout.
//
// The child gets the base environment of the agent's user, never the
// caller's: a root shell's variable does not reach it (failed before: the
// channel ran in the caller's whole environment).
func TestCommandChannel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "events")
	t.Setenv(callerVar, "leaked-from-the-caller")
	open := func(exit, sleep string) Channel {
		n := config.Notify{Name: "script", Kind: config.NotifyCommand, Command: childCommand(out, exit, sleep), Timeout: 5 * time.Second}
		ch, err := Open(&n)
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
	e := sample(KindServiceDown)
	if err := open("0", "").Send(ctxb, e); err != nil {
		t.Fatalf("Send: %v", err)
	}
	b, _ := os.ReadFile(out)
	id, rest, _ := strings.Cut(string(b), " ")
	seen, js, _ := strings.Cut(rest, " ")
	var got Event
	if err := json.Unmarshal([]byte(js), &got); err != nil || id != e.ID || got.ID != e.ID || got.Message != e.Message {
		t.Errorf("the child read %q (%v)", b, err)
	}
	if caller, home, _ := strings.Cut(seen, "|"); caller != "" || home == "" {
		t.Errorf("the child's environment: caller's variable %q (want none), %s %q (want the base environment's)", caller, baseVar(), home)
	}

	if err := open("1", "").Send(ctxb, e); err == nil || !strings.Contains(err.Error(), "exit status 1: receiver is unhappy") || IsPermanent(err) {
		t.Errorf("failing child: %v", err)
	}
	ch := open("0", "sleep")
	ctx, cancel := contextTimeout(300 * time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := ch.Send(ctx, e); err == nil || !strings.Contains(err.Error(), "no exit within the timeout") {
		t.Errorf("hanging child: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the hanging child held the sender %v", d)
	}
}

// TestSecretFileChannels: a webhook whose secret and an ntfy
// channel whose topic URL and token are in files of their own (the config
// itself holding none) sign and reach the receiver with the files' values.
func TestSecretFileChannels(t *testing.T) {
	rc := newReceiver(t, nil)
	dir := t.TempDir()
	for name, v := range map[string]string{"hmac": "file-hmac-key\n", "topic": rc.srv.URL + "/topic-from-file\n", "token": "tk_from_file\n",
		"ping": rc.srv.URL + "/ping/from-file\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(path, []byte(`
[agent]
state_dir = "`+filepath.ToSlash(filepath.Join(dir, "state"))+`"

[[notify]]
name = "hook"
kind = "webhook"
url = "`+rc.srv.URL+`/hook"
secret_file = "hmac"

[[notify]]
name = "phone"
kind = "ntfy"
url_file = "topic"
token_file = "token"

[[job]]
name = "pull"
schedule = "@hourly"
timezone = "UTC"
command = ["/bin/true"]
ping_file = "ping"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hook", "phone"} {
		ch, err := Open(cfg.NotifyChannel(name))
		if err != nil {
			t.Fatal(err)
		}
		if err := ch.Send(ctxb, sample(KindServiceDown)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	got := rc.got()
	if len(got) != 2 {
		t.Fatalf("%d requests", len(got))
	}
	if sig := got[0].Header.Get(SignatureHeader); got[0].Path != "/hook" || sig != documentedSignature("file-hmac-key", got[0].Body) {
		t.Errorf("webhook: %s signed %q", got[0].Path, sig)
	}
	if got[1].Path != "/topic-from-file" || got[1].Header.Get("Authorization") != "Bearer tk_from_file" {
		t.Errorf("ntfy: %s %v", got[1].Path, got[1].Header)
	}
	// A job's ping_file: its run pings the URL in the file.
	p := NewPinger(cfg, nil, quiet)
	p.RunFinished(runtrace.Run{ID: 7, JobID: "job:pull", Outcome: runtrace.OutcomeFailed, Reason: runtrace.ReasonExitNonzero})
	p.Wait()
	if got := rc.got(); len(got) != 3 || got[2].Path != "/ping/from-file/fail" {
		t.Errorf("ping_file: %d requests, last %+v", len(got), got[len(got)-1].Path)
	}
}
