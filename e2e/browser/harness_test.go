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
	goruntime "runtime"
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

// EnvBrowser switches the tests on.
const EnvBrowser = "SVCCTL_E2E_BROWSER"

func needBrowser(t *testing.T) string {
	t.Helper()
	if os.Getenv(EnvBrowser) != "1" {
		t.Skipf("set %s=1 to run the status page in headless Chromium (.ci/run does)", EnvBrowser)
	}
	if goruntime.GOOS == "windows" {
		// The page is the same Go code on every OS; these tests drive the
		// Linux Chromium .ci/run installs, which a Windows build under Wine
		// cannot start.
		t.Skipf("%s=1, but the browser tests drive Linux Chromium: run them on Linux", EnvBrowser)
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("%s=1 but no chromium on PATH: apt-get install chromium (.ci/run does)", EnvBrowser)
	return ""
}

// env is a config and state dir for svc-ctl, with the programs built.
type env struct {
	t                *testing.T
	svcctl, testsvc  string
	cfg, state       string
	webAddr, apiAddr string
}

var (
	buildOnce              sync.Once
	builtSvcctl, builtTest string
	buildErr               error
	buildDir               string
)

// newEnv builds svc-ctl and testsvc (once per test binary) and writes a
// config whose body body returns.
func newEnv(t *testing.T, body func(e *env) string) *env {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "svcctl-browser-")
		if buildErr != nil {
			return
		}
		if builtSvcctl, buildErr = testutil.GoBuild(buildDir, "./cmd/svc-ctl"); buildErr != nil {
			return
		}
		builtTest, buildErr = testutil.GoBuild(buildDir, "./internal/testsvc/cmd/testsvc")
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	e := &env{t: t, svcctl: builtSvcctl, testsvc: builtTest, webAddr: testutil.FreeAddr(t), apiAddr: testutil.FreeAddr(t)}
	e.cfg, e.state = testutil.WriteConfig(t, "", body(e))
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

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// service is a [[service]] block running testsvc on addr.
func (e *env) service(name, addr, interval string) string {
	return fmt.Sprintf(`
[[service]]
name = %q
command = [%q, "--addr", %q, "--tick", "500ms", "--say", "%s starting"]
interval = %q
start_timeout = "5s"
stop_timeout = "2s"
  [service.health]
  http = "http://%s/health"
  timeout = "1s"
  confirm = "0s"
`, name, e.testsvc, addr, name, interval, addr)
}

// job is a [[job]] block whose command exits 0.
func (e *env) job(name, schedule, zone string) string {
	return fmt.Sprintf(`
[[job]]
name = %q
schedule = %q
timezone = %q
command = [%q, "--exit-now", "0", "--say", "done"]
timeout = "30s"
`, name, schedule, zone, e.testsvc)
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
		if !strings.Contains(l, "/#token=") {
			t.Fatalf("first line of svc-ctl %v = %q, want the page's URL with its token", args, l)
		}
		return l
	case <-time.After(60 * time.Second):
		t.Fatalf("svc-ctl %v printed nothing", args)
		return ""
	}
}

// starts counts a service's recorded starts (ok/started), and those an exit
// triggered (the agent's fast path).
func (e *env) starts(name string) (all, onExit int) {
	out, err := exec.Command(e.svcctl, "--config", e.cfg, "runs", "--json", "--job", "watchdog:"+name).Output()
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

// browser is a headless Chromium tab that records every console error,
// uncaught exception, CSP report and failed load.
type browser struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

func newBrowser(t *testing.T, exe string) *browser {
	t.Helper()
	b := &browser{t: t}
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
	t.Cleanup(cancelA)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(b.listen))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium (%s): %v", exe, err)
	}
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelT)
	b.ctx = ctx
	return b
}

func (b *browser) listen(ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range ev.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			b.problems = append(b.problems, "console."+string(ev.Type)+": "+strings.Join(args, " "))
		}
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil {
			msg += " " + d.Exception.Description
		}
		b.problems = append(b.problems, fmt.Sprintf("exception: %s at %s:%d", msg, d.URL, d.LineNumber))
	case *cdplog.EventEntryAdded:
		// CSP violations, failed loads (a 401, a 404) and JS errors.
		if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
			b.problems = append(b.problems, "log "+string(ev.Entry.Level)+": "+ev.Entry.Text+" "+ev.Entry.URL)
		}
	}
}

// must fails the test with what the browser reported so far.
func (b *browser) must(what string, err error) {
	b.t.Helper()
	if err != nil {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.t.Fatalf("%s: %v (browser problems so far: %v)", what, err, b.problems)
	}
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	b.must(what, chromedp.Do(b.ctx, steps...))
}

func (b *browser) text(css string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(css)))
	b.must("read "+css, err)
	return s
}

func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	b.must("evaluate "+js, err)
	return v
}

// js is a step that runs a statement in the page.
func js(stmt string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(() => { `+stmt+`; return true })()`)(ctx, t)
		return err
	})
}

// dark switches the page to the OS's dark setting.
func dark() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
		return err
	})
}

// shot saves a full-page screenshot as dist/name after steps.
func (b *browser) shot(name string, steps ...chromedp.Action[chromedp.Void]) string {
	b.t.Helper()
	return b.capture(name, chromedp.FullScreenshot(100), steps...)
}

// shotViewport saves what the window shows (the top of a long page).
func (b *browser) shotViewport(name string, steps ...chromedp.Action[chromedp.Void]) string {
	b.t.Helper()
	return b.capture(name, chromedp.CaptureScreenshot(), steps...)
}

func (b *browser) capture(name string, how chromedp.Action[[]byte], steps ...chromedp.Action[chromedp.Void]) string {
	b.t.Helper()
	// A settle after the steps: a screenshot is for people, not a check.
	b.do("prepare "+name, append(steps, chromedp.Sleep(300*time.Millisecond))...)
	png, err := chromedp.Run(b.ctx, how)
	b.must("screenshot "+name, err)
	path := filepath.Join(distDir(b.t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
	return path
}

// noProblems fails the test on anything the browser reported.
func (b *browser) noProblems() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.problems) > 0 {
		b.t.Errorf("the browser reported errors:\n%s", strings.Join(b.problems, "\n"))
	}
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

func containsPrefix(xs []string, p string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}
