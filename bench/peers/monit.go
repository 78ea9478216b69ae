package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// monit runs `monit -I` (foreground) with a 1 s cycle and an HTTP check of
// /health with a 2 s timeout, restart on the first failure (as svc-ctl with
// confirm 0s).
//
// monit's start program must return: it runs init-style scripts and kills a
// start program still running after its timeout. testsvc stays in the
// foreground, so it is started the Debian way, through start-stop-daemon
// --background with a pid file, and stopped through it (SIGTERM, SIGKILL
// after 2 s: svc-ctl's stop_timeout in this bench).
type monit struct {
	bin, ssd string
}

func (m *monit) name() string { return "monit" }

func (m *monit) settings() string {
	return "cycle 1 s; HTTP check of /health, timeout 2 s, restart on the first failure"
}

// armed: after a start, monit 5.33 pauses a process's connection tests for
// the start program's timeout (5 s here), so a hang is not judged before.
func (m *monit) armed() time.Duration { return 6 * time.Second }

func (m *monit) prepare(ctx context.Context, e *env) (string, error) {
	var err error
	if m.bin, err = ensureDebian(ctx, e, "monit", "monit"); err != nil {
		return "", err
	}
	if m.ssd, err = findTool("start-stop-daemon", "/usr/sbin", "/sbin"); err != nil {
		return "", fmt.Errorf("%w (it comes with Debian's dpkg)", err)
	}
	out, err := toolOutput(ctx, m.bin, "-V")
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(out, "\n")
	return strings.TrimPrefix(strings.TrimSpace(first), "This is Monit version "), nil
}

func (m *monit) start(ctx context.Context, e *env, addr string) (*instance, error) {
	dir, err := e.k.SubDir("monit")
	if err != nil {
		return nil, err
	}
	for _, p := range []string{dir, e.bins.TestSvc, m.ssd} {
		if strings.ContainsAny(p, " \t\"'") {
			return nil, fmt.Errorf("path %q has a space or quote: monit's program lines cannot hold it; set TMPDIR or -testsvc to a plain path", p)
		}
	}
	rc := filepath.Join(dir, "monitrc")
	if err := os.WriteFile(rc, []byte(m.config(dir, e.bins.TestSvc, addr)), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", rc, err)
	}
	c, err := startChild(dir, filepath.Join(dir, "monit.out"), nil, m.bin, "-I", "-c", rc)
	if err != nil {
		return nil, err
	}
	pidfile := filepath.Join(dir, "web.pid")
	return e.newInstance(addr, []int{int(c.id.PID)}, func() error {
		err := c.stop(10 * time.Second)
		// monit leaves its services running when it exits.
		if pid, perr := readPid(pidfile); perr == nil {
			e.svcs.add(pid)
		}
		return err
	}), nil
}

// config is the monitrc. monit refuses one that others can read (0600).
func (m *monit) config(dir, testsvc, addr string) string {
	host, port, _ := strings.Cut(addr, ":")
	pidfile := filepath.Join(dir, "web.pid")
	var b strings.Builder
	fmt.Fprintf(&b, "set daemon 1\n")
	for _, kv := range [][2]string{{"logfile", "monit.log"}, {"pidfile", "monit.pid"}, {"idfile", "monit.id"}, {"statefile", "monit.state"}} {
		fmt.Fprintf(&b, "set %s %s\n", kv[0], filepath.Join(dir, kv[1]))
	}
	fmt.Fprintf(&b, "check process web with pidfile %s\n", pidfile)
	fmt.Fprintf(&b, "  start program = \"%s --start --background --make-pidfile --pidfile %s --exec %s -- --addr %s\" with timeout 5 seconds\n",
		m.ssd, pidfile, testsvc, addr)
	fmt.Fprintf(&b, "  stop program = \"%s --stop --pidfile %s --remove-pidfile --retry TERM/2/KILL/2\"\n", m.ssd, pidfile)
	fmt.Fprintf(&b, "  if failed host %s port %s protocol http request \"/health\" with timeout 2 seconds then restart\n", host, port)
	return b.String()
}
