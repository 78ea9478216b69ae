//go:build unix

package testsvc

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// launchServer is a launcher of the server args (this program again).
func launchServer(mode, ready string, args []string, stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	c := exec.Command(exe, args...)
	c.Stdout, c.Stderr = stdout, stderr
	c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	switch mode {
	case "wrap":
		return wrap(c, stdout, stderr)
	case "at-once-noenv":
		c.Env = []string{}
	case "double-fork":
		// The intermediate: a session of its own, the server its child, then it exits.
		c.Args = append([]string{exe, "--launch", "intermediate", "--"}, args...)
	case "intermediate":
		c.SysProcAttr = nil // already in a session of its own: the server stays in it
	}
	if err := c.Start(); err != nil {
		fmt.Fprintf(stderr, "launcher: could not start server: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "launcher: pid %d started pid %d (%s)\n", os.Getpid(), c.Process.Pid, mode)
	if mode != "wait-ready" {
		return 0
	}
	exited := make(chan error, 1)
	go func() { exited <- c.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			fmt.Fprintf(stdout, "launcher: could not start server: it ended (%v)\n", err)
			return 1
		case <-time.After(10 * time.Millisecond):
		}
		if resp, err := http.Get(ready); err == nil {
			resp.Body.Close()
			// Ready is its own server answering (as pg_ctl -w reads the
			// postmaster's pid): another process on the port (an older
			// instance) is not this start's success.
			if resp.StatusCode == http.StatusOK && resp.Header.Get("X-Pid") == strconv.Itoa(c.Process.Pid) {
				fmt.Fprintf(stdout, "launcher: server ready\n")
				return 0
			}
		}
	}
	fmt.Fprintf(stdout, "launcher: could not start server: not ready\n")
	return 1
}

// startWorkers starts n workers of this program, each in a session of its
// own, each with a pipe as its stdin that this process holds.
func startWorkers(n, mb int, follow bool, out io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	for range n {
		args := []string{"--worker", "--worker-mb", strconv.Itoa(mb)}
		if follow {
			args = append(args, "--workers-follow")
		}
		c := exec.Command(exe, args...)
		c.Stdout, c.Stderr = out, out
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		w, err := c.StdinPipe()
		if err != nil {
			return err
		}
		if err := c.Start(); err != nil {
			return err
		}
		keep = append(keep, w) // held open for as long as the server runs
		fmt.Fprintf(out, "testsvc: worker pid %d\n", c.Process.Pid)
		go c.Wait()
	}
	return nil
}

// shutdownOnSignals: SIGINT exits at once ("fast"); SIGTERM waits for every
// held client to leave ("smart"), then exits.
func shutdownOnSignals(s interface{ Logf(string, ...any) }, h *holders) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for sig := range ch {
			if sig == syscall.SIGINT {
				s.Logf("SIGINT: fast shutdown")
				os.Exit(0)
			}
			s.Logf("SIGTERM: waiting for %d clients to leave", h.count())
			go func() {
				for h.count() > 0 {
					time.Sleep(10 * time.Millisecond)
				}
				os.Exit(0)
			}()
		}
	}()
}

// wrap runs the server c as its child in its own session and process group
// (a wrapper that stays: "npm start", a shell script), forwarding no
// signal: SIGTERM and SIGINT are ignored here, so only a stop that signals
// every member (or kills them) ends the server, and the wrapper ends after
// it: 0 when the server exited 0, else 1 (as npm does).
func wrap(c *exec.Cmd, stdout, stderr io.Writer) int {
	c.SysProcAttr = nil
	if err := c.Start(); err != nil {
		fmt.Fprintf(stderr, "wrapper: could not start server: %v\n", err)
		return 1
	}
	// After the start: an ignored SIGINT would be inherited by the server.
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	fmt.Fprintf(stdout, "wrapper: pid %d runs pid %d\n", os.Getpid(), c.Process.Pid)
	if err := c.Wait(); err != nil {
		fmt.Fprintf(stdout, "wrapper: the server ended: %v\n", err)
		return 1
	}
	return 0
}

// ignoreTermSignal: SIGTERM does nothing to this process.
func ignoreTermSignal() { signal.Ignore(syscall.SIGTERM) }
