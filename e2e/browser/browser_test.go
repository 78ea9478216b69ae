package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"svcctl/internal/testutil"
	"svcctl/proc"
)

// TestStatusPageInChromium checks the status page in a real browser: an agent
// supervises a service and a job, the service is killed and the agent
// brings it back, and the page rendered by Chromium shows both names, the
// restart with its cause on the timeline, and no console error.
func TestStatusPageInChromium(t *testing.T) {
	exe := needBrowser(t)
	e := newEnv(t, func(e *env) string {
		return e.service("web", e.webAddr, "2s") + e.job("nightly-pull", "*/5 * * * *", "Asia/Shanghai")
	})
	e.start(false, "agent", "--max-stagger", "200ms")
	// Its first start recorded whole (a kill during that start would be a
	// failed start, not a restart).
	testutil.WaitFor(t, 30*time.Second, "web started by the agent", func() bool { n, _ := e.starts("web"); return n > 0 })
	inst, err := proc.ReadInstance(filepath.Join(e.state, "services", "web", "pid"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.KillPID(t, int(inst.PID))
	deadline := time.Now().Add(30 * time.Second)
	for _, n := e.starts("web"); n == 0; _, n = e.starts("web") {
		if time.Now().After(deadline) {
			runs, _ := exec.Command(e.svcctl, "--config", e.cfg, "runs", "--job", "watchdog:web").CombinedOutput()
			log, _ := os.ReadFile(filepath.Join(e.state, "agent.log"))
			t.Fatalf("the agent did not restore web within 30s of the kill (pid %d)\nruns:\n%s\nagent.log:\n%s", inst.PID, runs, log)
		}
		time.Sleep(100 * time.Millisecond)
	}
	url := e.start(true, "ui")

	b := newBrowser(t, exe)
	b.do("load the page",
		chromedp.Navigate(url),
		chromedp.WaitVisible(chromedp.CSS(`#services .item`)),
		chromedp.WaitReady(chromedp.CSS(`#timeline .mark.restart[data-cause]`)))
	services, jobs := b.text(`#services`), b.text(`#jobs`)
	location, err := chromedp.Run(b.ctx, chromedp.Location())
	b.must("read the location", err)
	causes := eval[[]string](b, `Array.from(document.querySelectorAll('#timeline .mark.restart')).map(m => m.getAttribute('data-cause'))`)
	labels := eval[string](b, `Array.from(document.querySelectorAll('#timeline .m-cause')).map(x => x.textContent).join(' ')`)
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

	// Live without flicker: the page refreshes itself, and a refresh patches
	// the nodes in place instead of replacing them (hover, focus and scroll
	// stay), so a node tagged now is the same node two refreshes later.
	b.do("tag nodes", js(`document.querySelector('#services .item').svcctlTag = 1;
		document.querySelector('#timeline .tl-row').svcctlTag = 1; window.svcctlUpdated = document.getElementById('updated').textContent`))
	b.do("two refreshes", chromedp.Poll[chromedp.Void](`(() => { const u = document.getElementById('updated').textContent;
		if (u !== window.svcctlUpdated) { window.svcctlSeen = (window.svcctlSeen || 0) + 1; window.svcctlUpdated = u; }
		return window.svcctlSeen >= 2 })()`, chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(30*time.Second)))
	if kept := eval[bool](b, `document.querySelector('#services .item').svcctlTag === 1 && document.querySelector('#timeline .tl-row').svcctlTag === 1`); !kept {
		t.Error("a refresh replaced the service card or the timeline row instead of patching it")
	}

	// Hover: the tooltip shows the row; click: the detail shows why, the
	// snapshot and the logs.
	const lastKill = `Array.from(document.querySelectorAll('#timeline .mark.restart')).filter(m => (m.getAttribute('data-cause') || '').startsWith('exited')).pop()`
	b.do("hover the restart", js(lastKill+`.dispatchEvent(new MouseEvent('mouseover', {bubbles: true}))`))
	tip := b.text(`#tip`)
	b.do("open the restart's detail", js(lastKill+`.dispatchEvent(new MouseEvent('click', {bubbles: true}))`),
		chromedp.WaitVisible(chromedp.CSS(`#detail .why`)), chromedp.WaitVisible(chromedp.CSS(`#detail pre.log`)))
	detail := strings.ToLower(b.text(`#detail`)) // innerText follows CSS text-transform
	if !strings.Contains(tip, "cause: exited") || !strings.Contains(tip, "trigger event") {
		t.Errorf("tooltip = %q, want the row with its cause", tip)
	}
	for _, want := range []string{"restarted by the watchdog", "snapshot before the restart", "exited", "runtime.prev.log", "runtime.log", "web starting"} {
		if !strings.Contains(detail, want) {
			t.Errorf("detail lacks %q: %s", want, detail)
		}
	}

	b.shot("ui-detail.png")

	// An action from the page itself (its token header, its Origin, its JSON):
	// pause web for an hour, then resume it.
	paused := filepath.Join(e.state, "services", "web", "paused")
	b.do("pause web from the page",
		js(`document.getElementById('detail').close()`),
		chromedp.Click(chromedp.CSS(`#services [data-action="pause"][data-name="web"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#pause-form select[name="for"]`)),
		chromedp.SetValue(chromedp.CSS(`#pause-form input[name="reason"]`), "disk swap"),
		chromedp.Click(chromedp.CSS(`#pause-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#services [data-action="resume"][data-name="web"]`)))
	sentinel, err := os.ReadFile(paused)
	if err != nil || !strings.Contains(string(sentinel), `"by": "ui"`) || !strings.Contains(string(sentinel), `"reason": "disk swap"`) || !strings.Contains(string(sentinel), `"until"`) {
		t.Errorf("pause sentinel after the page's pause = %s (%v), want by ui, the reason, an hour", sentinel, err)
	}
	if toast := b.text(`#toast`); !strings.Contains(toast, "web: paused until") {
		t.Errorf("toast = %q", toast)
	}
	b.do("resume web from the page",
		chromedp.Click(chromedp.CSS(`#services [data-action="resume"][data-name="web"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#services [data-action="pause"][data-name="web"]`)))
	if _, err := os.Stat(paused); err == nil {
		t.Error("the page's resume left the pause sentinel")
	}
	// The config file breaks while the page is open: a banner says so, with
	// the file's error; fixed, the banner goes.
	good, err := os.ReadFile(e.cfg)
	b.must("read the config", err)
	b.must("break the config", os.WriteFile(e.cfg, append(good, "\n[[service]]\nname = \"half\nwritten\n"...), 0o600))
	b.do("the broken-config banner", chromedp.WaitVisible(chromedp.CSS(`#config-banner pre.config-errors`)))
	if banner := b.text(`#config-banner`); !strings.Contains(banner, "config: BROKEN") || !strings.Contains(banner, e.cfg) || !strings.Contains(b.text(`#services`), "web") {
		t.Errorf("with the config broken the banner says %q (want config: BROKEN and the file's error) and services %q (want web)", banner, b.text(`#services`))
	}
	b.must("fix the config", os.WriteFile(e.cfg, good, 0o600))
	b.do("the banner goes", chromedp.WaitNotVisible(chromedp.CSS(`#config-banner`)))

	// The hour view: what a host that just started has to show.
	b.shot("ui-hour.png", js(`document.querySelector('[data-range="1h"]').click()`),
		chromedp.WaitReady(chromedp.CSS(`#timeline svg[aria-label$="last hour"]`)))
	b.shot("ui-hour-narrow-dark.png", chromedp.EmulateViewport(420, 900), dark(), chromedp.WaitReady(chromedp.CSS(`#timeline .mark`)))
	b.noProblems()
}
