package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/control"
	"svcctl/proc"
	"svcctl/report"
	"svcctl/runtrace"
	"svcctl/state"
)

// The demo's story: the first minute of `svc-ctl demo` plays out, one step
// at a time, what svc-ctl is for, and after each step says what happened
// (read back from run_trace, as any command would) and the command that
// shows it. It causes the failures itself (the demo service's /control
// endpoints, the demo jobs) and never fakes an answer: a step whose evidence
// does not come in time says so.

func printStoryIntro(w io.Writer, cfgPath string) {
	fmt.Fprintf(w, `svc-ctl demo: the agent, a demo service and three jobs, on a temporary state dir.
For a minute it plays a story of what goes wrong on a workstation and what
svc-ctl makes of it; then it keeps running for you to try the commands it
suggests, in another terminal, after:

     $ export SVC_CTL_CONFIG=%s

Lines marked NOTIFY are the events a [[notify]] channel would send.
(With 'go run', build once instead: go build ./cmd/svc-ctl && ./svc-ctl ...)
Ctrl-C stops the agent and the demo service.

`, cfgPath)
}

type demoStory struct {
	out     io.Writer
	cfg     *config.Config
	cfgPath string
	addr    string
	// enter delivers a person's Enter between the steps; nil: nobody is at
	// a terminal, and the story runs straight through.
	enter <-chan struct{}
}

func (s *demoStory) run(ctx context.Context) {
	steps := []func(context.Context) bool{s.crash, s.hang, s.jobs, s.missing, s.reload}
	for i, step := range steps {
		if ctx.Err() != nil || !step(ctx) {
			return
		}
		if i < len(steps)-1 && !s.next(ctx) {
			return
		}
	}
	s.say(`
── That was the story ─────────────────────────────────────────
   The agent keeps running, with everything the story showed. In another terminal:
     $ export SVC_CTL_CONFIG=%s
     $ svc-ctl status
     $ svc-ctl runs --hide-routine
     $ svc-ctl why report
     $ svc-ctl restart demo
     $ svc-ctl pause demo --for 1m
     $ svc-ctl verify
     $ curl -s http://%s/control/crash
   ('svc-ctl logs --all -f' follows every log; 'svc-ctl ui' draws it all.)
`, s.cfgPath, s.addr)
}

// next waits before the next step: for Enter at a terminal, else a few
// seconds, for the step's NOTIFY lines to arrive.
func (s *demoStory) next(ctx context.Context) bool {
	if s.enter == nil {
		pause(ctx, 3*time.Second)
		return ctx.Err() == nil
	}
	s.say("   [Enter: the next step]\n")
	select {
	case <-ctx.Done():
		return false
	case _, ok := <-s.enter:
		if !ok { // stdin closed: go on without waiting
			s.enter = nil
		}
		return true
	}
}

// crash: the process the agent spawned exits; the agent restarts it at
// once, without waiting for its next cycle.
func (s *demoStory) crash(ctx context.Context) bool {
	s.title(1, "A crash, restored by the fast path")
	if s.waitRow(ctx, "watchdog:demo", time.Time{}, runtrace.ReasonStarted, 20*time.Second) == nil {
		return s.missed(ctx, "the demo service's first start")
	}
	s.say("   The demo service is up. Now it crashes (exit code 3: curl http://%s/control/crash).\n", s.addr)
	at := time.Now()
	s.get("/control/crash")
	r := s.waitRow(ctx, "watchdog:demo", at, runtrace.ReasonStarted, 20*time.Second)
	if r == nil {
		return s.missed(ctx, "the restart after the crash")
	}
	s.say("   The agent waits on the process it spawned: it restarted it %s after the crash,\n"+
		"   not at its next cycle. The run, with its cause:\n%s"+
		"   See it:\n"+
		"     $ svc-ctl why --run %d\n"+
		"     $ svc-ctl snapshot demo\n",
		r.FinishedAt.Sub(at).Round(time.Millisecond), rowLine(r), r.ID)
	return true
}

// hang: the process lives on but stops answering; only a health check
// catches it.
func (s *demoStory) hang(ctx context.Context) bool {
	s.title(2, "A hang, replaced at the next cycle")
	s.say("   Now /health stops answering; the process stays alive (curl http://%s/control/hang).\n"+
		"   Its PID is fine; only a health check can tell. The next cycle (every 5 s) looks twice\n"+
		"   (confirm 1s), keeps the evidence, stops the whole tree and starts it again...\n", s.addr)
	at := time.Now()
	s.get("/control/hang")
	r := s.waitRow(ctx, "watchdog:demo", at, runtrace.ReasonStarted, 25*time.Second)
	if r == nil {
		return s.missed(ctx, "the replacement of the hung service")
	}
	s.say("   Replaced %s after it hung:\n%s"+
		"   Why, with the evidence kept before the restart:\n"+
		"     $ svc-ctl why --run %d\n"+
		"     $ svc-ctl runs --job demo --hide-routine\n",
		r.FinishedAt.Sub(at).Round(time.Second), rowLine(r), r.ID)
	return true
}

// jobs: a scheduled job fails; another decides itself to skip, and says
// why (SVCCTL_RESULT).
func (s *demoStory) jobs(ctx context.Context) bool {
	s.title(3, "Two jobs: one fails, one reports its own skip")
	s.say("   'report' and 'sync' run every 30 s. Waiting for their first runs...\n")
	failed := s.waitRow(ctx, "job:report", time.Time{}, "", 45*time.Second)
	skipped := s.waitRow(ctx, "job:sync", time.Time{}, "", 45*time.Second)
	if failed == nil || skipped == nil {
		return s.missed(ctx, "the jobs' first runs")
	}
	s.say("%s"+
		"   report failed: why says its exit code and the last lines of its output.\n"+
		"%s"+
		"   sync decided itself that there was nothing to do: it wrote\n"+
		"   'skipped upstream-down: ...' to $SVCCTL_RESULT, so it is not a failure and not retried.\n"+
		"   See them, and run report again now:\n"+
		"     $ svc-ctl why report\n"+
		"     $ svc-ctl why sync\n"+
		"     $ svc-ctl logs report\n"+
		"     $ svc-ctl run report\n",
		rowLine(failed), rowLine(skipped))
	return true
}

// missing: a job another scheduler should have run, and did not. Its slot
// has no row: a fact svc-ctl can state, and tells people about.
func (s *demoStory) missing(ctx context.Context) bool {
	s.title(4, "A slot that never ran")
	st, err := runtrace.Open(state.PathsOf(s.cfg).DB(), runtrace.Options{ReadOnly: true, BusyTimeout: time.Second})
	if err != nil {
		return s.missed(ctx, "the ledger: "+err.Error())
	}
	defer st.Close()
	ms, err := report.Missing(ctx, st, s.cfg, nil, time.Now().Add(-time.Hour), time.Now())
	if err != nil || len(ms) == 0 {
		return s.missed(ctx, "the missing slot of 'backup'")
	}
	s.say("   'backup' is external: cron is supposed to run it through 'svc-ctl exec backup -- ...'.\n"+
		"   Its slot of %s has no row, past its grace: it never ran. Nobody had to look:\n"+
		"   the agent checks every job's slots each minute (the NOTIFY job.missing line at the start).\n"+
		"   See it:\n"+
		"     $ svc-ctl missing\n"+
		"     $ svc-ctl why backup\n", ms[0].Slot.Local().Format("15:04:05"))
	return true
}

// reload: a job is added to the file, and the agent takes the new file
// without a restart; nothing else is touched.
func (s *demoStory) reload(ctx context.Context) bool {
	s.title(5, "A reload, and nothing else is touched")
	exe, err := os.Executable()
	if err != nil {
		return s.missed(ctx, "this program's path: "+err.Error())
	}
	f, err := os.OpenFile(s.cfgPath, os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = fmt.Fprintf(f, demoReloadJob, exe)
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return s.missed(ctx, "the demo's config: "+err.Error())
	}
	p := state.PathsOf(s.cfg)
	before, _ := proc.ReadPidFile(p.Pid("demo"))
	_, resp, err := control.Send(ctx, p, control.KindReload, control.ReloadArgs{}, 20*time.Second)
	if err != nil {
		return s.missed(ctx, "the agent's answer to the reload: "+err.Error())
	}
	var done control.ReloadDone
	resp.Decode(&done)
	var d struct {
		Message string `json:"message"`
	}
	json.Unmarshal(done.Detail, &d)
	after, _ := proc.ReadPidFile(p.Pid("demo"))
	kept := "the demo service kept its process"
	if after.PID != before.PID {
		kept = "the demo service was restarted"
	}
	s.say("   A job 'hello' is added to the file, and the agent re-reads it\n"+
		"   (svc-ctl reload; SIGHUP on Linux and macOS does the same):\n"+
		"     %s\n"+
		"   Nothing else was touched: %s (pid %d). See it:\n"+
		"     $ svc-ctl runs --job agent -n 3\n"+
		"     $ svc-ctl status hello\n", d.Message, kept, after.PID)
	return true
}

func (s *demoStory) title(n int, what string) {
	line := fmt.Sprintf("── %d/5  %s ", n, what)
	s.say("\n%s%s\n", line, strings.Repeat("─", max(3, 64-len([]rune(line)))))
}

func (s *demoStory) say(format string, a ...any) {
	io.WriteString(s.out, fmt.Sprintf(format, a...)) // one write: other lines never cut into it
}

func (s *demoStory) missed(ctx context.Context, what string) bool {
	if ctx.Err() != nil {
		return false // stopped (Ctrl-C): nothing went missing
	}
	s.say("   (%s did not show up in time: the machine may be busy; see 'svc-ctl runs'. The story stops here.)\n", what)
	return false
}

func (s *demoStory) get(path string) {
	c := http.Client{Timeout: 2 * time.Second}
	if r, err := c.Get("http://" + s.addr + path); err == nil {
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
	}
}

// waitRow waits for a finished row of job, started after since, with the
// reason (any when empty).
func (s *demoStory) waitRow(ctx context.Context, job string, since time.Time, reason runtrace.Reason, d time.Duration) *runtrace.Run {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if st, err := runtrace.Open(state.PathsOf(s.cfg).DB(), runtrace.Options{ReadOnly: true, BusyTimeout: time.Second}); err == nil {
			rs, _ := st.Runs(ctx, runtrace.Filter{JobID: job, Since: since.Truncate(time.Millisecond), Reason: reason, Limit: 5})
			st.Close()
			for i := range rs {
				if rs[i].Outcome != runtrace.OutcomeRunning {
					return &rs[i]
				}
			}
		}
		pause(ctx, 200*time.Millisecond)
	}
	return nil
}

// rowLine is one row as the story shows it.
func rowLine(r *runtrace.Run) string {
	var d struct {
		Cause    string `json:"cause"`
		Why      string `json:"why"`
		ExitCode *int   `json:"exit_code"`
	}
	json.Unmarshal(r.Detail, &d)
	extra := ""
	switch {
	case d.Cause != "":
		extra = "cause: " + d.Cause
	case d.Why != "":
		extra = "why: " + d.Why
	case d.ExitCode != nil:
		extra = fmt.Sprintf("exit code %d", *d.ExitCode)
	}
	return fmt.Sprintf("     #%d  %s  %s  %s  %s\n", r.ID, r.StartedAt.Local().Format("15:04:05"), r.JobID, r.Verdict(), extra)
}

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
