package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// supervisord runs `supervisord -n` (foreground) with one [program] that
// restarts on exit. It has no health check.
type supervisord struct {
	bin string
}

func (s *supervisord) name() string { return "supervisord" }

func (s *supervisord) settings() string {
	return "autorestart on exit (startsecs 1, stopwaitsecs 2); no health check"
}

// armed: a process that exits within startsecs (1 s) is a failed start.
func (s *supervisord) armed() time.Duration { return 2 * time.Second }

func (s *supervisord) prepare(ctx context.Context, e *env) (string, error) {
	var err error
	if s.bin, err = ensureDebian(ctx, e, "supervisord", "supervisor"); err != nil {
		return "", err
	}
	out, err := toolOutput(ctx, s.bin, "--version")
	return strings.TrimSpace(out), err
}

func (s *supervisord) start(ctx context.Context, e *env, addr string) (*instance, error) {
	dir, err := e.k.SubDir("supervisord")
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "supervisord.conf")
	if err := os.WriteFile(conf, []byte(s.config(dir, e.bins.TestSvc, addr)), 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", conf, err)
	}
	c, err := startChild(dir, filepath.Join(dir, "supervisord.out"), nil, s.bin, "-n", "-c", conf)
	if err != nil {
		return nil, err
	}
	// On SIGTERM supervisord stops its programs (SIGTERM, then SIGKILL after
	// stopwaitsecs) before it exits.
	return e.newInstance(addr, []int{int(c.id.PID)}, func() error { return c.stop(15 * time.Second) }), nil
}

func (s *supervisord) config(dir, testsvc, addr string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[supervisord]\nnodaemon=true\nlogfile=%s\npidfile=%s\nchildlogdir=%s\n",
		filepath.Join(dir, "supervisord.log"), filepath.Join(dir, "supervisord.pid"), dir)
	if os.Geteuid() == 0 {
		b.WriteString("user=root\n") // says "yes, as root" (else it logs a CRIT line)
	}
	fmt.Fprintf(&b, "\n[program:web]\ncommand=%s --addr %s\nautostart=true\nautorestart=true\nstartsecs=1\nstopwaitsecs=2\n", testsvc, addr)
	fmt.Fprintf(&b, "stdout_logfile=%s\nstderr_logfile=%s\n", filepath.Join(dir, "web.out"), filepath.Join(dir, "web.err"))
	return b.String()
}
