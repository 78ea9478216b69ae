package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// uiProc is a running `svc-ctl ui` and the URL it printed first.
type uiProc struct {
	url, base, token string
	stderr           *lockedBuf
}

// lockedBuf is a process's stderr, read while it is written.
type lockedBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func startUI(t *testing.T, args ...string) *uiProc {
	t.Helper()
	return startUIWith(t, nil, args...)
}

// startUIWith is startUI with the process's environment (nil: this test's).
func startUIWith(t *testing.T, env []string, args ...string) *uiProc {
	t.Helper()
	cmd := exec.Command(svcctlBin, append([]string{"ui"}, args...)...)
	cmd.Env = env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errb := &lockedBuf{}
	cmd.Stderr = errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
		io.Copy(io.Discard, out)
	}()
	var first string
	select {
	case first = <-line:
	case <-time.After(30 * time.Second):
		t.Fatalf("svc-ctl ui printed no URL; stderr: %s", errb.String())
	}
	m := regexp.MustCompile(`^(http://127\.0\.0\.1:[0-9]+)/#token=([A-Za-z0-9_-]{43})$`).FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("first line %q is not the page's URL with its token; stderr: %s", first, errb.String())
	}
	return &uiProc{url: first, base: m[1], token: m[2], stderr: errb}
}

func (u *uiProc) request(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, u.base+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+u.token)
	if method == http.MethodPost {
		req.Header.Set("Origin", u.base)
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestUIServesAndActs: `svc-ctl ui` prints its URL first, serves the state
// without an agent, and its start runs the CLI's cycle, recorded manual
// and by "ui".
func TestUIServesAndActs(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "10m"))
	u := startUI(t, "--config", cfg)
	if code, body := u.request(t, "GET", "/api/state", ""); code != 200 || !strings.Contains(body, `"name":"web"`) || !strings.Contains(body, `"state":"stopped"`) {
		t.Fatalf("state = %d %s", code, body)
	}
	code, body := u.request(t, "POST", "/api/actions/start", `{"name":"web"}`)
	if code != 200 || !strings.Contains(body, `"reason":"started"`) {
		t.Fatalf("start = %d %s", code, body)
	}
	if !testutil.Healthy(addr) {
		t.Fatal("web is not running after the page's start")
	}
	r := svcctl(t, "--config", cfg, "runs", "--json", "--job", "watchdog:web")
	var runs []struct {
		Trigger string
		Reason  string
		Detail  struct{ By string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &runs); err != nil || len(runs) != 1 || runs[0].Trigger != "manual" || runs[0].Detail.By != "ui" {
		t.Fatalf("runs = %s (%v), want one manual run by ui", r.stdout, err)
	}
	testutil.WaitForSaying(t, 10*time.Second, "the action's line in the terminal (ui.action)", func() bool {
		return strings.Contains(u.stderr.String(), "ui.action")
	}, u.stderr.String)
	if _, err := os.Stat(filepath.Join(state, "services", "web", "paused")); err == nil {
		t.Fatal("paused before any pause")
	}
}

// TestUIActionsCheckTheConfigAgain: a config that became writable by
// others after the page started is refused at the next action, as the CLI
// verb would refuse it, and nothing is done.
func TestUIActionsCheckTheConfigAgain(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the permission check applies when running as root")
	}
	cfg, state := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m"))
	u := startUI(t, "--config", cfg)
	if err := os.Chmod(cfg, 0o666); err != nil {
		t.Fatal(err)
	}
	code, body := u.request(t, "POST", "/api/actions/pause", `{"name":"web","reason":"x"}`)
	if code != http.StatusForbidden || !strings.Contains(body, "chmod go-w") {
		t.Errorf("pause with a world-writable config = %d %s, want 403 naming the fix", code, body)
	}
	if _, err := os.Stat(filepath.Join(state, "services", "web", "paused")); err == nil {
		t.Error("the refused pause wrote its sentinel")
	}
}

// TestUIFollowsAChmod: a chmod alone (no write) changes whether a
// privileged page may act on its file; the page's banner follows it both
// ways at the next refresh (it once followed mtime and size only).
func TestUIFollowsAChmod(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the permission check applies when running as root")
	}
	cfg, _ := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m"))
	u := startUI(t, "--config", cfg)
	configError := func() string {
		t.Helper()
		code, body := u.request(t, "GET", "/api/state", "")
		var p struct {
			ConfigError string `json:"config_error"`
		}
		if code != 200 || json.Unmarshal([]byte(body), &p) != nil {
			t.Fatalf("state = %d %s", code, body)
		}
		return p.ConfigError
	}
	if e := configError(); e != "" {
		t.Fatalf("config_error %q on a good file", e)
	}
	if err := os.Chmod(cfg, 0o666); err != nil {
		t.Fatal(err)
	}
	if e := configError(); !strings.Contains(e, "chmod go-w") {
		t.Errorf("config_error after chmod 666 = %q, want the refusal naming the fix", e)
	}
	if err := os.Chmod(cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	if e := configError(); e != "" {
		t.Errorf("config_error after chmod 600 = %q, want none", e)
	}
}

// TestUIRefusesAPublicListenByDefault: a non-loopback address needs
// --listen-public (exit 2 naming it).
func TestUIRefusesAPublicListenByDefault(t *testing.T) {
	cfg, _ := writeConfig(t, "", webService("web", testutil.FreeAddr(t), "10m"))
	r := svcctl(t, "--config", cfg, "ui", "--listen", "0.0.0.0:0")
	if r.code != 2 || !strings.Contains(r.stderr, "--listen-public") || r.stdout != "" {
		t.Errorf("ui --listen 0.0.0.0:0 = %+v, want exit 2 naming --listen-public", r)
	}
}

// TestUIServesABrokenConfig: `svc-ctl ui` on a file that does not load
// serves the page from the state dir as status does, says what is broken
// in /api/state's config_error, refuses actions with 409 and the file's
// problems, and once the file is fixed (and a job added) shows the file's
// services and jobs again and acts.
func TestUIServesABrokenConfig(t *testing.T) {
	addr := testutil.FreeAddr(t)
	cfg, state := writeConfig(t, "", webService("web", addr, "10m"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	good, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(good, "\n[[service]]\nname = \"half\nwritten\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	u := startUI(t, "--config", cfg)
	// The process wrote its warnings before the URL, but exec copies a
	// child's stderr into the buffer from a goroutine of its own: wait.
	testutil.WaitForSaying(t, 10*time.Second, "stderr to name the broken file and the refused actions", func() bool {
		s := u.stderr.String()
		return strings.Contains(s, "the config does not load") && strings.Contains(s, "actions are refused")
	}, u.stderr.String)
	type page struct {
		ConfigError string `json:"config_error"`
		ConfigShown string `json:"config_shown"`
		Services    []struct{ Name, State string }
		Jobs        []struct{ Name string }
	}
	state1 := func() page {
		t.Helper()
		code, body := u.request(t, "GET", "/api/state", "")
		var p page
		if code != 200 || json.Unmarshal([]byte(body), &p) != nil {
			t.Fatalf("state = %d %s", code, body)
		}
		return p
	}
	p := state1()
	if !strings.Contains(p.ConfigError, cfg) || p.ConfigShown != "state_dir" || len(p.Services) != 1 || p.Services[0].Name != "web" || p.Services[0].State != "healthy" {
		t.Fatalf("state with the file broken = %+v; want config_error naming the file and web healthy from the state dir", p)
	}
	code, body := u.request(t, "POST", "/api/actions/pause", `{"name":"web","reason":"x"}`)
	var refused struct {
		ConfigErrors []string `json:"config_errors"`
	}
	// Decoded: a Windows path is escaped in the JSON text (C:\\users...).
	if code != http.StatusConflict || json.Unmarshal([]byte(body), &refused) != nil || len(refused.ConfigErrors) == 0 ||
		!strings.Contains(refused.ConfigErrors[0], cfg) {
		t.Errorf("pause with the file broken = %d %s, want 409 with the file's errors", code, body)
	}
	if _, err := os.Stat(filepath.Join(state, "services", "web", "paused")); err == nil {
		t.Fatal("the refused pause wrote its sentinel")
	}
	// Fixed, with a job added: the running page picks both up.
	if err := os.WriteFile(cfg, append(good, pullJob...), 0o600); err != nil {
		t.Fatal(err)
	}
	p = state1()
	if p.ConfigError != "" || p.ConfigShown != "file" || len(p.Jobs) != 1 || p.Jobs[0].Name != "pull" {
		t.Fatalf("state after the fix = %+v; want no config_error and the job pull", p)
	}
	if code, body := u.request(t, "POST", "/api/actions/pause", `{"name":"web","reason":"x"}`); code != 200 {
		t.Errorf("pause after the fix = %d %s", code, body)
	}
}

// TestUIRefusesABrokenConfigOthersCanWrite: a broken file is no way around
// the permission check: a privileged `svc-ctl ui` refuses a config others
// can write, loadable or not, before it serves anything.
func TestUIRefusesABrokenConfigOthersCanWrite(t *testing.T) {
	if !privileged() {
		t.Skip("the permission check applies when running privileged (root, an elevated token)")
	}
	addr := testutil.FreeAddr(t)
	cfg, _ := writeConfig(t, "", webService("web", addr, "10m"))
	if r := svcctl(t, "start", "web", "--config", cfg); r.code != 0 {
		t.Fatalf("start: %+v", r)
	}
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\n[[service]]\nname = \"half\nwritten\n")
	f.Close()
	fix := writableByOthers(t, cfg)
	// Bounded: a ui that serves would run until stopped.
	cmd := exec.Command(svcctlBin, "--config", cfg, "ui", "--listen", "127.0.0.1:0")
	var out, errb lockedBuf
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("ui with a broken, world-writable config served the page: stdout %q, stderr %s", out.String(), errb.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(errb.String(), fix) || out.String() != "" || strings.Contains(errb.String(), "answering from the state dir") {
		t.Errorf("ui with a broken, world-writable config: exit %d, stdout %q, stderr %s; want exit 2 naming %s and no page", code, out.String(), errb.String(), fix)
	}
}
