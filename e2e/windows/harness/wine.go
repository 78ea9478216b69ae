package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// wine runs Windows programs in one throwaway prefix.
type wine struct {
	bin        string // wine64
	server     string // wineserver
	prefix     string // WINEPREFIX
	prebuilt   string // host dir of the prebuilt helpers (testsvc.exe, rtload.exe, svc-ctl.exe)
	extraEnv   []string
	debugTrace bool
}

// env is the environment every Windows program gets: the prefix, no Wine
// debug chatter, no Mono/Gecko install prompts, and where the prebuilt
// helpers are (test binaries have no Go toolchain to build them with).
func (w *wine) env() []string {
	env := []string{
		"WINEPREFIX=" + w.prefix,
		"WINEDLLOVERRIDES=mscoree,mshtml=",
		"SVCCTL_TEST_PREBUILT=" + winPath(w.prebuilt),
	}
	if !w.debugTrace {
		env = append(env, "WINEDEBUG=-all")
	}
	return append(append(os.Environ(), env...), w.extraEnv...)
}

// command is exe (a host path) with args under Wine, in dir.
func (w *wine) command(ctx context.Context, dir, exe string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.bin, append([]string{exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = w.env()
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// server runs wineserver with args (-k ends every process of the prefix,
// -w waits until the server has exited).
func (w *wine) serverCmd(args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, w.server, args...)
	cmd.Env = w.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("wineserver %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// shutdown ends every Windows process of the prefix and waits for the server:
// what a power-off does to the prefix. Only this prefix's processes are
// touched, never another engineer's Wine.
func (w *wine) shutdown() error {
	if err := w.serverCmd("-k"); err != nil && !strings.Contains(err.Error(), "exit status 1") {
		return err
	}
	return w.serverCmd("-w")
}

// boot starts the prefix again the way Windows boots: wineboot -r runs the
// service control manager, which starts every auto-start service. Its output
// goes to a file, not a pipe: the services it starts inherit the handle and
// keep running, so a pipe would never see its end.
func (w *wine) boot(ctx context.Context) error {
	out, err := os.CreateTemp("", "svcctl-wineboot-")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd := w.command(ctx, w.prefix, "wineboot", "-r")
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		b, _ := os.ReadFile(out.Name())
		return fmt.Errorf("wineboot -r: %w: %s", err, b)
	}
	return nil
}

// winPath is how a Windows program in the prefix names the host path p:
// Wine maps the host's / to drive Z:.
func winPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = p
	}
	return `Z:` + strings.ReplaceAll(abs, "/", `\`)
}
