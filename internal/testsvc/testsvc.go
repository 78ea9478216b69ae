// Package testsvc is a small HTTP service used by svc-ctl's tests and
// benchmarks: the demo service (internal/demosvc) plus what tests need to make
// it misbehave in each of the ways a supervised service dies. It must stay
// quick to start, and it is never linked into svc-ctl.
//
// Flags:
//
//	--addr 127.0.0.1:PORT   listen address (required)
//	--startup-delay D       sleep D before listening (a slow starter)
//	--exit-now N            exit with code N at once, before listening
//	--health-status N       status code /health answers with (default 200)
//	--body S                body /health answers with (default "ok")
//	--tick D                write a log line to stdout every D (0 = off)
//	--say S                 write the line S to stdout first
//	--result S              write S to the file $SVCCTL_RESULT names (a job reporting its own verdict)
//	--grow-child MB         start a child process (of the tree) that grows to MB MiB of resident memory,
//	                        4 MiB every 50 ms, and holds it (a leak in a worker)
//	--grow MB               be that child: grow to MB MiB, then hold it until killed
//	--sleep D               with --exit-now: run D before exiting
//	--retitle-after D       write over its environment area D after it listens (Linux), as a server that
//	                        sets its process title does: its SVCCTL_INSTANCE marker is gone (-1: never)
//	--pid-file P            write its pid to P once it listens (a daemon's pid file)
//	--setsid-workers N      start N worker processes, each in a session of its own (setsid), as a database's
//	                        workers are; with --worker-mb M each holds M MiB; they outlive the server unless
//	                        --workers-follow, with which each ends when the server does (its pipe closes)
//	--term-waits-client     SIGTERM waits for every /control/hold client to leave before exiting ("smart"
//	                        shutdown); SIGINT exits at once ("fast" shutdown)
//	--ignore-term           ignore SIGTERM (a server that does not stop on the usual signal: only SIGKILL ends it)
//	--check URL             be a health command: exit 0 when URL answers 200, else 1
//	--launch MODE -- ARGS   be a launcher of the server ARGS (this program again), unix only:
//	                        at-once        start it in a session of its own and exit 0 at once
//	                        at-once-noenv  the same with an empty environment (nothing marks it)
//	                        wait-ready     start it in a session of its own, wait for --ready URL to answer 200,
//	                                       then exit 0; exit 1 ("could not start server") if it ends first
//	                        double-fork    fork an intermediate that starts a session, starts the server and
//	                                       exits; exit 0 at once (a classic daemon; with --pid-file in ARGS)
//	                        wrap           a wrapper that stays, as "npm start" and shell scripts are: start the
//	                                       server as its child (same session and group), ignore SIGTERM and
//	                                       SIGINT (forward nothing), wait for it, exit 0 when it did, else 1
//
// With --exit-now (and --say, --sleep) it stands in for a job's command on
// every OS: no /bin/sh, /bin/true or /bin/sleep is needed.
//
// Control endpoints (any method):
//
//	/control/hang    from now on /health never answers (the process stays alive)
//	/control/crash   exit(3) at once
//	/control/retitle write over its environment area now (see --retitle-after)
//	/control/hold    answer the headers, then hold the connection open until the client leaves
//	/control/grow-worker?mb=N   the first --setsid-workers worker grows to N MiB (a leak in a worker)
//	/control/status?code=N   change /health's status code
//	/control/flood?mb=N      write N MB (10^6 bytes) of numbered lines to stdout as fast as it can, then
//	                         "flood done N lines"; answers once it is done
package testsvc

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"

	"svcctl/internal/demosvc"
)

// Main runs the service with args (without the program name) and returns the
// process exit code. It only returns on a usage or listen error.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testsvc", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "listen address")
	delay := fs.Duration("startup-delay", 0, "sleep before listening")
	exitNow := fs.Int("exit-now", -1, "exit with this code at once")
	status := fs.Int("health-status", 200, "status of /health")
	body := fs.String("body", "ok", "body of /health")
	tick := fs.Duration("tick", 0, "log a line every tick")
	say := fs.String("say", "", "write this line to stdout first (a job's output)")
	result := fs.String("result", "", "write this to the file $SVCCTL_RESULT names (a job's own verdict)")
	growChild := fs.Int("grow-child", 0, "start a child that grows to this many MiB")
	grow := fs.Int("grow", 0, "grow to this many MiB and hold it")
	sleep := fs.Duration("sleep", 0, "with --exit-now: run this long before exiting (a job that takes time)")
	crashAfter := fs.Duration("crash-after", 0, "serve, then exit with code 4 this long after listening (a crash loop)")
	sayEnv := fs.String("say-env", "", "write NAME=value of this variable (or NAME unset) to stdout first")
	sayDir := fs.Bool("say-dir", false, "write dir=<working directory> to stdout first")
	retitleAfter := fs.Duration("retitle-after", -1, "write over the environment area this long after listening")
	pidFile := fs.String("pid-file", "", "write the pid here once listening")
	workers := fs.Int("setsid-workers", 0, "start this many workers, each in a session of its own")
	workerMB := fs.Int("worker-mb", 0, "what each worker holds, MiB")
	workersFollow := fs.Bool("workers-follow", false, "workers end when the server does")
	worker := fs.Bool("worker", false, "be a worker (internal)")
	termWaits := fs.Bool("term-waits-client", false, "SIGTERM waits for /control/hold clients; SIGINT exits at once")
	launch := fs.String("launch", "", "be a launcher: at-once, at-once-noenv, wait-ready, double-fork, wrap")
	ready := fs.String("ready", "", "with --launch wait-ready: the URL that answers 200 once the server is ready")
	check := fs.String("check", "", "be a health command: exit 0 when this URL answers 200")
	ignoreTerm := fs.Bool("ignore-term", false, "ignore SIGTERM: only SIGKILL ends it")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *sayEnv != "" {
		if v, ok := os.LookupEnv(*sayEnv); ok {
			fmt.Fprintf(stdout, "%s=%s\n", *sayEnv, v)
		} else {
			fmt.Fprintf(stdout, "%s unset\n", *sayEnv)
		}
	}
	if *sayDir {
		wd, _ := os.Getwd()
		fmt.Fprintf(stdout, "dir=%s\n", wd)
	}
	if *check != "" {
		return checkURL(*check)
	}
	if *launch != "" {
		return launchServer(*launch, *ready, fs.Args(), stdout, stderr)
	}
	if *worker {
		return runWorker(*workerMB, *workersFollow)
	}
	if *ignoreTerm {
		ignoreTermSignal()
	}
	if *result != "" {
		if err := os.WriteFile(os.Getenv("SVCCTL_RESULT"), []byte(*result+"\n"), 0o600); err != nil {
			fmt.Fprintf(stderr, "testsvc: --result: %v\n", err)
			return 2
		}
	}
	if *say != "" {
		fmt.Fprintln(stdout, *say)
	}
	if *grow > 0 {
		growTo(*grow)
	}
	s := demosvc.New("testsvc", stdout)
	s.Logf("pid %d starting on %s", os.Getpid(), *addr)
	if *exitNow >= 0 {
		time.Sleep(*sleep)
		s.Logf("exiting at once with %d", *exitNow)
		return *exitNow
	}
	if *addr == "" {
		fmt.Fprintln(stderr, "testsvc: --addr is required")
		return 2
	}
	time.Sleep(*delay)
	if *growChild > 0 {
		if err := startGrower(*growChild, stdout); err != nil {
			fmt.Fprintf(stderr, "testsvc: --grow-child: %v\n", err)
			return 1
		}
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "testsvc: listen: %v\n", err)
		return 1
	}
	if *workers > 0 {
		if err := startWorkers(*workers, *workerMB, *workersFollow, stdout); err != nil {
			fmt.Fprintf(stderr, "testsvc: --setsid-workers: %v\n", err)
			return 1
		}
	}
	holds := &holders{}
	s.Mux.HandleFunc("/control/hold", holds.serve)
	s.Mux.HandleFunc("/control/grow-worker", growWorker)
	if *termWaits {
		shutdownOnSignals(s, holds)
	}
	s.SetHealth(*status, *body)
	s.Mux.HandleFunc("/control/status", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil || n < 100 || n > 599 {
			http.Error(w, "bad code", http.StatusBadRequest)
			return
		}
		s.SetHealth(n, *body)
		io.WriteString(w, "ok\n")
	})
	s.Mux.HandleFunc("/control/flood", func(w http.ResponseWriter, r *http.Request) {
		mb, err := strconv.Atoi(r.URL.Query().Get("mb"))
		if err != nil || mb < 1 {
			http.Error(w, "bad mb", http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, "flood done %d lines\n", flood(stdout, int64(mb)*1_000_000))
	})
	s.Mux.HandleFunc("/pid", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d\n", os.Getpid())
	})
	s.Mux.HandleFunc("/control/retitle", func(w http.ResponseWriter, r *http.Request) {
		if err := retitle(); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "ok\n")
	})
	if *pidFile != "" {
		if err := os.WriteFile(*pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			fmt.Fprintf(stderr, "testsvc: --pid-file: %v\n", err)
			return 1
		}
	}
	if *retitleAfter >= 0 {
		time.AfterFunc(*retitleAfter, func() {
			if err := retitle(); err != nil {
				s.Logf("retitle: %v", err)
				return
			}
			s.Logf("retitled: environment area written over")
		})
	}
	s.Tick(*tick)
	if *crashAfter > 0 {
		time.AfterFunc(*crashAfter, func() {
			s.Logf("crashing %s after it began to serve", *crashAfter)
			os.Exit(4)
		})
	}
	return s.Run(context.Background(), ln, stderr) // a signal ends it as it ends any program
}

// flood writes n bytes of 100-byte numbered lines to out, buffered, then a
// last line saying it is done; it returns how many flood lines it wrote.
func flood(out io.Writer, n int64) int {
	w := bufio.NewWriterSize(out, 256<<10)
	pad := make([]byte, 100)
	for i := range pad {
		pad[i] = 'x'
	}
	lines := 0
	for written := int64(0); written < n; written += 100 {
		head := fmt.Sprintf("flood %09d ", lines)
		w.WriteString(head)
		w.Write(pad[:100-len(head)-1])
		w.WriteByte('\n')
		lines++
	}
	fmt.Fprintf(w, "flood done %d lines\n", lines)
	w.Flush()
	return lines
}

// startGrower starts this program again as a child that grows to mb MiB.
func startGrower(mb int, out io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	c := exec.Command(exe, "--grow", strconv.Itoa(mb))
	c.Stdout, c.Stderr = out, out
	if err := c.Start(); err != nil {
		return err
	}
	go c.Wait()
	return nil
}

// growTo allocates mb MiB, 4 MiB every 50 ms, writing every page so it is
// resident, then holds it until the process is killed.
func growTo(mb int) {
	for n := 0; n < mb; n += 4 {
		b := make([]byte, 4<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		grown = append(grown, b)
		time.Sleep(50 * time.Millisecond)
	}
	fmt.Printf("testsvc: grew to %d MiB\n", len(grown)*4)
	for {
		time.Sleep(time.Hour)
	}
}

// grown holds what growTo allocated: reachable, so never collected.
var grown [][]byte
