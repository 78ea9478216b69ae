package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"svcctl/internal/testutil"
	"svcctl/proc"
)

// EnvBrowser switches the test on.
const EnvBrowser = "SVCCTL_E2E_BROWSER"

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("%s=1 but no chromium on PATH: apt-get install chromium (.ci/run does)", EnvBrowser)
	return ""
}

type env struct {
	t          *testing.T
	svcctl     string
	cfg, state string
	webAddr    string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	bin := t.TempDir()
	svcctl, err := testutil.GoBuild(bin, "./cmd/svc-ctl")
	if err != nil {
		t.Fatal(err)
	}
	testsvc, err := testutil.GoBuild(bin, "./internal/testsvc/cmd/testsvc")
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, svcctl: svcctl, webAddr: testutil.FreeAddr(t)}
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	body := fmt.Sprintf(`
[[service]]
name = "web"
command = [%s, "--addr", %s, "--tick", "500ms"]
interval = "2s"
start_timeout = "5s"
stop_timeout = "2s"
  [service.health]
  http = "http://%s/health"
  timeout = "1s"
  confirm = "0s"

[[job]]
name = "nightly-pull"
schedule = "*/5 * * * *"
timezone = "Asia/Shanghai"
command = [%s, "--exit-now", "0", "--say", "pulled"]
timeout = "30s"
`, q(testsvc), q(e.webAddr), e.webAddr, q(testsvc))
	e.cfg, e.state = testutil.WriteConfig(t, "", body)
	t.Cleanup(func() {
		ms, _ := filepath.Glob(filepath.Join(e.state, "services", "*", "pid"))
		for _, m := range ms {
			if id, err := proc.ReadPidFile(m); err == nil {
				proc.Kill(id)
			}
		}
	})
	return e
}

// start runs svc-ctl with args until the test ends; it returns the first
// line it prints (for `ui`, the URL) when asked to wait for one.
func (e *env) start(firstLine bool, args ...string) string {
	t := e.t
	t.Helper()
	cmd := exec.Command(e.svcctl, append([]string{"--config", e.cfg}, args...)...)
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- strings.TrimSpace(s)
		io.Copy(io.Discard, out)
	}()
	if !firstLine {
		return ""
	}
	select {
	case l := <-line:
		return l
	case <-time.After(60 * time.Second):
		t.Fatalf("svc-ctl %v printed nothing", args)
		return ""
	}
}

// starts counts web's recorded starts (ok/started), and those an exit
// triggered (the agent's fast path).
func (e *env) starts() (all, onExit int) {
	out, err := exec.Command(e.svcctl, "--config", e.cfg, "runs", "--json", "--job", "watchdog:web").Output()
	if err != nil {
		return 0, 0
	}
	var runs []struct{ Trigger, Outcome, Reason string }
	json.Unmarshal(out, &runs)
	for _, r := range runs {
		if r.Outcome == "ok" && r.Reason == "started" {
			all++
			if r.Trigger == "event" {
				onExit++
			}
		}
	}
	return all, onExit
}

// TestStatusPageInChromium is issue 14's check in a real browser.
func TestStatusPageInChromium(t *testing.T) {
	if os.Getenv(EnvBrowser) != "1" {
		t.Skipf("set %s=1 to run the status page in headless Chromium (.ci/run does)", EnvBrowser)
	}
	exe := chromium(t)
	e := newEnv(t)
	e.start(false, "agent", "--max-stagger", "200ms")
	// Its first start recorded whole (a kill during that start would be a
	// failed start, not a restart).
	testutil.WaitFor(t, 30*time.Second, "web started by the agent", func() bool { n, _ := e.starts(); return n > 0 })

	inst, err := proc.ReadInstance(filepath.Join(e.state, "services", "web", "pid"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.KillPID(t, int(inst.PID))
	deadline := time.Now().Add(30 * time.Second)
	for _, n := e.starts(); n == 0; _, n = e.starts() {
		if time.Now().After(deadline) {
			runs, _ := exec.Command(e.svcctl, "--config", e.cfg, "runs", "--job", "watchdog:web").CombinedOutput()
			log, _ := os.ReadFile(filepath.Join(e.state, "agent.log"))
			t.Fatalf("the agent did not restore web within 30s of the kill (pid %d)\nruns:\n%s\nagent.log:\n%s", inst.PID, runs, log)
		}
		time.Sleep(100 * time.Millisecond)
	}

	url := e.start(true, "ui")
	if !strings.Contains(url, "/?token=") {
		t.Fatalf("first line of svc-ctl ui = %q, want its URL with the token", url)
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1000),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	var mu sync.Mutex
	var problems []string
	listener := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				problems = append(problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			problems = append(problems, fmt.Sprintf("exception: %s at %s:%d", msg, d.URL, d.LineNumber))
		case *cdplog.EventEntryAdded:
			// CSP violations, failed loads (a 401, a 404) and JS errors.
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				problems = append(problems, "log "+string(ev.Entry.Level)+": "+ev.Entry.Text+" "+ev.Entry.URL)
			}
		}
	}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listener))
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium (%s): %v", exe, err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	defer cancelT()

	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			mu.Lock()
			defer mu.Unlock()
			t.Fatalf("%s: %v (browser problems so far: %v)", what, err, problems)
		}
	}
	must("load the page", chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`#services .item`)),
		chromedp.WaitReady(chromedp.CSS(`#timeline .mark.restart[data-cause]`)),
	))
	services, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#services`)))
	must("read the services", err)
	jobs, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#jobs`)))
	must("read the jobs", err)
	location, err := chromedp.Run(ctx, chromedp.Location())
	must("read the location", err)
	causes, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('#timeline .mark.restart')).map(m => m.getAttribute('data-cause'))`))
	must("read the restart marks", err)
	labels, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('#timeline .m-cause')).map(x => x.textContent).join(' ')`))
	must("read the cause labels", err)

	if !strings.Contains(services, "web") || !strings.Contains(jobs, "nightly-pull") {
		t.Errorf("the page does not show both names: services %q, jobs %q", services, jobs)
	}
	if !strings.Contains(services, "exited: killed by SIGKILL") {
		t.Errorf("web's last restart and its cause are not on the page: %q", services)
	}
	if !containsPrefix(causes, "exited") || !strings.Contains(labels, "exited") {
		t.Errorf("the timeline's restart marks carry causes %q and labels %q: want the kill's, exited", causes, labels)
	}
	if strings.Contains(location, "token=") {
		t.Errorf("the token stayed in the address bar: %s", location)
	}

	// Hover: the tooltip shows the row; click: the detail shows why, the
	// snapshot and the logs.
	const lastKill = `Array.from(document.querySelectorAll('#timeline .mark.restart')).filter(m => (m.getAttribute('data-cause') || '').startsWith('exited')).pop()`
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { `+lastKill+`.dispatchEvent(new MouseEvent('mouseover', {bubbles: true})); return true })()`))
	must("hover the restart", err)
	tip, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#tip`)))
	must("read the tooltip", err)
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { `+lastKill+`.dispatchEvent(new MouseEvent('click', {bubbles: true})); return true })()`))
	must("click the restart", err)
	must("open the detail", chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#detail .why`)), chromedp.WaitVisible(chromedp.CSS(`#detail pre.log`))))
	detail, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#detail`)))
	must("read the detail", err)
	if !strings.Contains(tip, "cause: exited") || !strings.Contains(tip, "trigger event") {
		t.Errorf("tooltip = %q, want the row with its cause", tip)
	}
	for _, want := range []string{"our side completed", "snapshot before the restart", "exited", "runtime.prev.log", "runtime.log"} {
		if !strings.Contains(strings.ToLower(detail), want) { // innerText follows CSS text-transform
			t.Errorf("detail lacks %q: %s", want, detail)
		}
	}

	dist := distDir(t)
	shot := func(name string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		must("prepare "+name, chromedp.Do(ctx, append(steps, chromedp.Sleep(300*time.Millisecond))...))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		must("screenshot "+name, err)
		if err := os.WriteFile(filepath.Join(dist, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", filepath.Join(dist, name))
	}
	shot("ui-detail.png")
	// The hour view: what a host that just started has to show.
	shot("ui.png", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`document.getElementById('detail').close(), document.querySelector('[data-range="1h"]').click(), true`)(ctx, tg)
		return err
	}), chromedp.WaitReady(chromedp.CSS(`#timeline svg[aria-label$="last hour"]`)))
	shot("ui-narrow-dark.png",
		chromedp.EmulateViewport(420, 900),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
			return err
		}),
		chromedp.WaitReady(chromedp.CSS(`#timeline .mark`)))

	mu.Lock()
	defer mu.Unlock()
	if len(problems) > 0 {
		t.Errorf("the browser reported errors:\n%s", strings.Join(problems, "\n"))
	}
}

func containsPrefix(xs []string, p string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}

// distDir is the repository's dist/ (gitignored), where screenshots go.
func distDir(t *testing.T) string {
	root, err := testutil.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "dist")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
