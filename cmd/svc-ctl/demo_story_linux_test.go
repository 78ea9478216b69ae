package main

import (
	"bufio"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// demoAnswers is what each command the story suggests must answer: its
// exit status and words its output holds (stdout and stderr). A command the
// story suggests that is not listed here fails the test: every suggestion
// is checked.
var demoAnswers = []struct {
	cmd   *regexp.Regexp
	codes []int
	want  []string
}{
	{regexp.MustCompile(`^svc-ctl why --run \d+$`), []int{0}, []string{"answer: restarted by the watchdog", "evidence kept before it"}},
	{regexp.MustCompile(`^svc-ctl snapshot demo$`), []int{0}, []string{"exited", "unhealthy"}},
	{regexp.MustCompile(`^svc-ctl runs --job demo --hide-routine$`), []int{0}, []string{"watchdog:demo", "restart by watchdog"}},
	{regexp.MustCompile(`^svc-ctl why report$`), []int{1}, []string{"answer: failed: its command exited with code 2", "| report: dial tcp db.internal:5432: connection refused"}},
	{regexp.MustCompile(`^svc-ctl why sync$`), []int{0}, []string{"skipped, as the job itself decided (upstream-down)"}},
	{regexp.MustCompile(`^svc-ctl logs report$`), []int{0}, []string{"report: connecting to db.internal:5432"}},
	{regexp.MustCompile(`^svc-ctl run report$`), []int{2}, []string{"report: dial tcp", "report: failed/exit-nonzero: exit code 2"}},
	{regexp.MustCompile(`^svc-ctl missing$`), []int{1}, []string{"job:backup"}},
	{regexp.MustCompile(`^svc-ctl why backup$`), []int{1}, []string{"never run", "external"}},
	{regexp.MustCompile(`^svc-ctl runs --job agent -n 3$`), []int{0}, []string{"ok/reloaded", "jobs added: hello"}},
	{regexp.MustCompile(`^svc-ctl status hello$`), []int{0, 1}, []string{"hello", "@every 1m"}},
	{regexp.MustCompile(`^export SVC_CTL_CONFIG=\S+$`), nil, nil},
	{regexp.MustCompile(`^svc-ctl status$`), []int{0, 1}, []string{"agent:  running", "demo", "report", "sync", "backup", "hello"}},
	{regexp.MustCompile(`^svc-ctl runs --hide-routine$`), []int{0}, []string{"job:report", "watchdog:demo"}},
	{regexp.MustCompile(`^svc-ctl restart demo$`), []int{0}, []string{"demo: restarted (pid "}},
	{regexp.MustCompile(`^svc-ctl pause demo --for 1m$`), []int{0}, []string{"demo: paused until "}},
	{regexp.MustCompile(`^svc-ctl verify$`), []int{0, 1}, []string{"PASS"}},
	{regexp.MustCompile(`^curl -s http://\S+/control/crash$`), nil, nil},
}

// TestDemoStory: `svc-ctl demo` plays its story in about a minute, each
// step narrated with the commands that show it and the events a channel
// would get (NOTIFY lines); then it keeps what it showed (the jobs stay in
// its config: before, its last step removed them and its own suggestions
// answered "no service or job named"). Every command the story suggests is
// then run, as a person would type it after the export line it prints, and
// its answer checked (before: `why demo` showed a routine cycle, not the
// restart it promised).
func TestDemoStory(t *testing.T) {
	cmd := exec.Command(svcctlBin, "demo")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	var mu sync.Mutex
	var text strings.Builder
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			mu.Lock()
			text.WriteString(sc.Text() + "\n")
			mu.Unlock()
		}
	}()
	got := func() string {
		mu.Lock()
		defer mu.Unlock()
		return text.String()
	}
	testutil.WaitForSaying(t, 150*time.Second, "the end of the story", func() bool {
		return strings.Contains(got(), "That was the story") || strings.Contains(got(), "The story stops here")
	}, got)
	s := got()
	for _, want := range []string{
		"1/5  A crash, restored by the fast path", "cause: exited: with code 3",
		"2/5  A hang, replaced at the next cycle", "cause: unhealthy: http: ",
		"3/5  Two jobs", "job:report  failed/exit-nonzero", "job:sync  skipped/job.upstream-down",
		"4/5  A slot that never ran",
		"5/5  A reload", "reloaded: jobs added: hello; 4 unchanged", "the demo service kept its process",
		"NOTIFY job.failed: job report", "NOTIFY job.skipped: job sync", "NOTIFY job.missing: job backup",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the story lacks %q", want)
		}
	}
	if n := strings.Count(s, "NOTIFY service.down: demo"); n != 2 {
		t.Errorf("%d service.down events, want 2 (the crash and the hang)", n)
	}
	if strings.Contains(s, "[Enter") {
		t.Error("the story waited for Enter with no terminal")
	}

	// Every command the story suggested, as typed after its export line.
	var cfgPath string
	var suggested []string
	for _, l := range strings.Split(s, "\n") {
		c, ok := strings.CutPrefix(strings.TrimSpace(l), "$ ")
		if !ok {
			continue
		}
		suggested = append(suggested, c)
		if p, ok := strings.CutPrefix(c, "export SVC_CTL_CONFIG="); ok {
			cfgPath = p
		}
	}
	if cfgPath == "" || len(suggested) < 15 {
		t.Fatalf("the story suggests %d commands and no export line:\n%s", len(suggested), s)
	}
	checked := map[string]bool{}
	for _, c := range suggested {
		if checked[c] {
			continue
		}
		checked[c] = true
		i := -1
		for k, a := range demoAnswers {
			if a.cmd.MatchString(c) {
				i = k
			}
		}
		if i < 0 {
			t.Errorf("the story suggests %q, which this test does not check: add its answer to demoAnswers", c)
			continue
		}
		a := demoAnswers[i]
		switch {
		case strings.HasPrefix(c, "export "):
		case strings.HasPrefix(c, "curl "):
			u := strings.Fields(c)[2]
			if r, err := http.Get(u); err != nil {
				t.Errorf("%s: %v", c, err)
			} else {
				r.Body.Close()
			}
		default:
			r := svcctlEnv(t, []string{"SVC_CTL_CONFIG=" + cfgPath}, strings.Fields(c)[1:]...)
			all := r.stdout + r.stderr
			okCode := false
			for _, code := range a.codes {
				okCode = okCode || r.code == code
			}
			if !okCode || strings.Contains(all, "no service or job named") {
				t.Errorf("%s: exit %d, want %v:\n%s", c, r.code, a.codes, all)
				continue
			}
			for _, w := range a.want {
				if !strings.Contains(all, w) {
					t.Errorf("%s: the answer lacks %q:\n%s", c, w, all)
				}
			}
		}
	}
	if t.Failed() {
		t.Logf("the demo said:\n%s", s)
	}
}
