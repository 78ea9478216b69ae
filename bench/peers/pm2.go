package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/proc"
)

// pm2 runs PM2's daemon (God) with its own PM2_HOME under the work
// directory, and one app: testsvc in fork mode (interpreter none),
// autorestart on exit. PM2 has no health check (that is PM2 Plus, a hosted
// service).
type pm2 struct {
	bin string
}

func (p *pm2) name() string { return "PM2" }

func (p *pm2) settings() string {
	return "fork mode, autorestart on exit (restart_delay 0); no health check"
}

// armed: an app that dies within min_uptime (1 s) is an unstable restart.
func (p *pm2) armed() time.Duration { return 2 * time.Second }

func (p *pm2) prepare(ctx context.Context, e *env) (string, error) {
	var err error
	if p.bin, err = ensureNPM(ctx, e, "pm2", "pm2@7"); err != nil {
		return "", err
	}
	// Not `pm2 --version`: that starts a daemon in ~/.pm2.
	return pm2Version(p.bin)
}

// pm2Version reads the version from the package.json of the installed pm2.
func pm2Version(bin string) (string, error) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", bin, err)
	}
	// .../node_modules/pm2/bin/pm2 -> .../node_modules/pm2/package.json
	pj := filepath.Join(filepath.Dir(filepath.Dir(real)), "package.json")
	b, err := os.ReadFile(pj)
	if err != nil {
		return "", fmt.Errorf("pm2 version: %w", err)
	}
	var v struct{ Version string }
	if err := json.Unmarshal(b, &v); err != nil || v.Version == "" {
		return "", fmt.Errorf("pm2 version: no version in %s", pj)
	}
	return v.Version, nil
}

func (p *pm2) start(ctx context.Context, e *env, addr string) (*instance, error) {
	dir, err := e.k.SubDir("pm2")
	if err != nil {
		return nil, err
	}
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		return nil, fmt.Errorf("create PM2_HOME: %w", err)
	}
	eco := filepath.Join(dir, "ecosystem.json")
	b, err := p.config(dir, e.bins.TestSvc, addr)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(eco, b, 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", eco, err)
	}
	env := []string{"PM2_HOME=" + home}
	pidfile := filepath.Join(home, "pm2.pid")
	// The daemon detaches from the CLI: it is not our child. Its stop is
	// registered before it exists, and finds it by its pid file.
	var daemon proc.Identity
	in := e.newInstance(addr, nil, func() error { return p.stop(env, pidfile, daemon) })
	if _, err := toolOutputEnv(ctx, env, p.bin, "start", eco, "--no-color"); err != nil {
		in.stop()
		return nil, err
	}
	pid, err := readPid(pidfile)
	if err == nil {
		daemon, err = benchkit.IdentityOfPID(pid)
	}
	if err != nil {
		in.stop()
		return nil, fmt.Errorf("PM2 daemon: %w", err)
	}
	in.pids = []int{pid}
	return in, nil
}

// stop runs `pm2 kill` (stops the apps, then the daemon), then makes sure
// the daemon is gone by its PID.
func (p *pm2) stop(env []string, pidfile string, daemon proc.Identity) error {
	if daemon.PID == 0 {
		pid, err := readPid(pidfile)
		if err != nil {
			return nil // no daemon was started
		}
		if daemon, err = benchkit.IdentityOfPID(pid); err != nil {
			return nil
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, kerr := toolOutputEnv(ctx, env, p.bin, "kill", "--no-color")
	if err := benchkit.StopIdentity(daemon, 5*time.Second); err != nil {
		return err
	}
	return kerr
}

func (p *pm2) config(dir, testsvc, addr string) ([]byte, error) {
	app := map[string]any{
		"name": "web", "script": testsvc, "args": []string{"--addr", addr},
		"interpreter": "none", "exec_mode": "fork", "autorestart": true,
		"out_file": filepath.Join(dir, "web.out"), "error_file": filepath.Join(dir, "web.err"), "cwd": dir,
	}
	return json.MarshalIndent(map[string]any{"apps": []any{app}}, "", "  ")
}

// readPid reads a pid file holding a decimal PID.
func readPid(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("pid file %s: %q is not a pid", path, b)
	}
	return pid, nil
}
