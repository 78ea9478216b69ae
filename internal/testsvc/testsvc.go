// Package testsvc is a small HTTP service used by svc-ctl's tests, benchmarks
// and demo: it answers /health and can be told to misbehave in each of the ways
// a supervised service dies. It must stay dependency-free and quick to start.
//
// Flags:
//
//	--addr 127.0.0.1:PORT   listen address (required)
//	--startup-delay D       sleep D before listening (a slow starter)
//	--exit-now N            exit with code N at once, before listening
//	--health-status N       status code /health answers with (default 200)
//	--body S                body /health answers with (default "ok")
//	--tick D                write a log line to stdout every D (0 = off)
//
// Control endpoints (any method):
//
//	/control/hang    from now on /health never answers (the process stays alive)
//	/control/crash   exit(3) at once
//	/control/status?code=N   change /health's status code
package testsvc

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"
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
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fmt.Fprintf(stdout, "testsvc: pid %d starting on %s\n", os.Getpid(), *addr)
	if *exitNow >= 0 {
		fmt.Fprintf(stdout, "testsvc: exiting at once with %d\n", *exitNow)
		return *exitNow
	}
	if *addr == "" {
		fmt.Fprintln(stderr, "testsvc: --addr is required")
		return 2
	}
	time.Sleep(*delay)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "testsvc: listen: %v\n", err)
		return 1
	}
	var hang atomic.Bool
	var code atomic.Int64
	code.Store(int64(*status))
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		if hang.Load() {
			select {} // alive, never answers
		}
		w.WriteHeader(int(code.Load()))
		io.WriteString(w, *body)
	})
	mux.HandleFunc("/control/hang", func(w http.ResponseWriter, r *http.Request) {
		hang.Store(true)
		fmt.Fprintf(stdout, "testsvc: /health now hangs\n")
		io.WriteString(w, "hanging\n")
	})
	mux.HandleFunc("/control/crash", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(stdout, "testsvc: crashing on request\n")
		os.Exit(3)
	})
	mux.HandleFunc("/control/status", func(w http.ResponseWriter, r *http.Request) {
		n, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil || n < 100 || n > 599 {
			http.Error(w, "bad code", http.StatusBadRequest)
			return
		}
		code.Store(int64(n))
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/pid", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d\n", os.Getpid())
	})
	if *tick > 0 {
		go func() {
			for i := 0; ; i++ {
				time.Sleep(*tick)
				fmt.Fprintf(stdout, "testsvc: tick %d\n", i)
			}
		}()
	}
	fmt.Fprintf(stdout, "testsvc: listening on %s\n", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	err = srv.Serve(ln)
	fmt.Fprintf(stderr, "testsvc: serve: %v\n", err)
	return 1
}
