package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"svcctl/bench/internal/benchkit"
)

// command builds an exec.Cmd from argv: never a shell.
func command(argv ...string) *exec.Cmd { return exec.Command(argv[0], argv[1:]...) }

// toolOutput runs a short command and returns its stdout.
func toolOutput(ctx context.Context, argv ...string) (string, error) {
	return toolOutputEnv(ctx, nil, argv...)
}

// toolOutputEnv runs a short command with extra environment variables and
// returns its stdout; a failure carries the end of its output.
func toolOutputEnv(ctx context.Context, env []string, argv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, lastBytes(errb.String()+out.String(), 600))
	}
	return out.String(), nil
}

func lastBytes(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}

// findTool looks name up on PATH, then in dirs.
func findTool(name string, dirs ...string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or in %s", name, strings.Join(dirs, ", "))
}

// systemDaemons are the pid files of the daemons that Debian's monit and
// supervisor packages start when the host lets a package start services
// (this VM's policy-rc.d does not; a workstation's does).
var systemDaemons = map[string]struct{ pidfile, cmd string }{
	"monit":      {"/run/monit.pid", "monit"},
	"supervisor": {"/run/supervisord.pid", "supervisord"},
}

// ensureDebian returns bin's path, installing Debian's package pkg first
// when bin is missing and installing is allowed.
func ensureDebian(ctx context.Context, e *env, bin, pkg string) (string, error) {
	if p, err := findTool(bin, "/usr/bin", "/usr/sbin"); err == nil {
		return p, nil
	}
	if !e.install {
		return "", fmt.Errorf("%s is not installed: apt-get install %s (as root), or run without -no-install, or leave it out with -peers", bin, pkg)
	}
	if os.Geteuid() != 0 {
		return "", fmt.Errorf("%s is not installed and installing needs root: run `apt-get install %s` as root, or leave it out with -peers", bin, pkg)
	}
	before := daemonRunning(pkg)
	fmt.Printf("installing %s from Debian's packages (apt-get install %s)\n", bin, pkg)
	if err := aptInstall(ctx, pkg); err != nil {
		return "", err
	}
	stopPackageDaemon(pkg, before)
	return findTool(bin, "/usr/bin", "/usr/sbin")
}

// aptInstall runs apt-get install, waiting while another apt or dpkg holds
// its lock (the machine is shared).
func aptInstall(ctx context.Context, pkg string) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	for {
		cmd := exec.CommandContext(ctx, "apt-get", "install", "-y", "--no-install-recommends", pkg)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		out, err := cmd.CombinedOutput()
		if err == nil {
			return nil
		}
		if !bytes.Contains(out, []byte("Could not get lock")) && !bytes.Contains(out, []byte("Unable to acquire the dpkg frontend lock")) {
			return fmt.Errorf("apt-get install %s: %w: %s", pkg, err, lastBytes(string(out), 800))
		}
		fmt.Printf("apt/dpkg lock held by another install; retrying in 10 s\n")
		select {
		case <-ctx.Done():
			return fmt.Errorf("apt-get install %s: the apt/dpkg lock stayed held: %w", pkg, ctx.Err())
		case <-time.After(10 * time.Second):
		}
	}
}

// daemonRunning reports whether pkg's system daemon runs now.
func daemonRunning(pkg string) bool {
	d, ok := systemDaemons[pkg]
	if !ok {
		return false
	}
	pid, err := readPid(d.pidfile)
	if err != nil {
		return false
	}
	_, err = benchkit.IdentityOfPID(pid)
	return err == nil
}

// stopPackageDaemon stops the system daemon that installing pkg started, by
// the PID in its pid file, if it was not running before the install.
func stopPackageDaemon(pkg string, wasRunning bool) {
	d, ok := systemDaemons[pkg]
	if !ok || wasRunning {
		return
	}
	pid, err := readPid(d.pidfile)
	if err != nil {
		return
	}
	id, err := benchkit.IdentityOfPID(pid)
	if err != nil {
		return
	}
	cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if !bytes.Contains(cmdline, []byte(d.cmd)) {
		return
	}
	fmt.Printf("the %s package started its system daemon (pid %d): stopping it\n", pkg, pid)
	if err := benchkit.StopIdentity(id, 10*time.Second); err != nil {
		fmt.Printf("stop %s daemon pid %d: %v\n", pkg, pid, err)
	}
}

// ensureNPM returns bin's path, installing spec globally from npm first
// when bin is missing and installing is allowed.
func ensureNPM(ctx context.Context, e *env, bin, spec string) (string, error) {
	if p, err := exec.LookPath(bin); err == nil {
		return p, nil
	}
	if !e.install {
		return "", fmt.Errorf("%s is not installed: npm install -g %s, or run without -no-install, or leave it out with -peers", bin, spec)
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%s is not installed and npm is missing: install Node.js and npm (apt-get install nodejs npm), or leave %s out with -peers", bin, bin)
	}
	fmt.Printf("installing %s from npm (npm install -g %s)\n", bin, spec)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "install", "-g", spec).CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && os.Geteuid() != 0 {
			return "", fmt.Errorf("npm install -g %s: %w (a global install may need root): %s", spec, err, lastBytes(string(out), 600))
		}
		return "", fmt.Errorf("npm install -g %s: %w: %s", spec, err, lastBytes(string(out), 600))
	}
	return exec.LookPath(bin)
}
