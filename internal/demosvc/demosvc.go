// Package demosvc is the service `svc-ctl demo` supervises: a small HTTP
// service that answers /health and can be told to die or hang, the two ways
// the demo shows the watchdog at work. It is the only service code linked
// into svc-ctl; the tests' service (internal/testsvc) builds on it.
//
// Control endpoints (any method):
//
//	/control/hang    from now on /health never answers (the process stays alive)
//	/control/crash   the process exits with code 3 at once (Main returns 3)
package demosvc

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Service is one instance: its handlers and what it has been told.
type Service struct {
	name   string // prefix of every line it writes
	out    io.Writer
	hang   atomic.Bool
	status atomic.Int64
	body   atomic.Value // string
	crash  chan struct{}
	once   sync.Once
	Mux    *http.ServeMux
}

// New returns a service that answers /health with 200 "ok" and writes its
// lines, prefixed with name, to out.
func New(name string, out io.Writer) *Service {
	s := &Service{name: name, out: out, Mux: http.NewServeMux(), crash: make(chan struct{})}
	s.status.Store(200)
	s.body.Store("ok")
	s.Mux.HandleFunc("/health", s.health)
	s.Mux.HandleFunc("/control/hang", func(w http.ResponseWriter, r *http.Request) {
		s.hang.Store(true)
		s.Logf("/health now hangs")
		io.WriteString(w, "hanging\n")
	})
	s.Mux.HandleFunc("/control/crash", func(w http.ResponseWriter, r *http.Request) {
		s.Logf("crashing on request")
		s.once.Do(func() { close(s.crash) })
	})
	return s
}

// SetHealth sets what /health answers.
func (s *Service) SetHealth(status int, body string) {
	s.status.Store(int64(status))
	s.body.Store(body)
}

func (s *Service) health(w http.ResponseWriter, r *http.Request) {
	if s.hang.Load() {
		select {} // alive, never answers
	}
	// Which process answered: a launcher waiting for its own server to be
	// ready tells it from another process serving the same port.
	w.Header().Set("X-Pid", strconv.Itoa(os.Getpid()))
	w.WriteHeader(int(s.status.Load()))
	io.WriteString(w, s.body.Load().(string))
}

// Logf writes one line to the service's output.
func (s *Service) Logf(format string, a ...any) {
	fmt.Fprintf(s.out, s.name+": "+format+"\n", a...)
}

// Tick writes a line every d until the process ends (0: never), so the
// runtime log has something to rotate.
func (s *Service) Tick(d time.Duration) {
	if d <= 0 {
		return
	}
	go func() {
		for i := 0; ; i++ {
			time.Sleep(d)
			s.Logf("tick %d", i)
		}
	}()
}

// CrashCode is the exit code of a service told to crash.
const CrashCode = 3

// Run answers on ln until serving fails (exit code 1), /control/crash is
// requested (CrashCode) or ctx ends (0: stopped, as by SIGTERM), and returns
// the process exit code: the caller's main exits with it at once.
func (s *Service) Run(ctx context.Context, ln net.Listener, stderr io.Writer) int {
	s.Logf("listening on %s", ln.Addr())
	srv := &http.Server{Handler: s.Mux, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		fmt.Fprintf(stderr, "%s: serve: %v\n", s.name, err)
		return 1
	case <-s.crash:
		return CrashCode
	case <-ctx.Done():
		s.Logf("stopping: %v", context.Cause(ctx))
		return 0
	}
}

// Main runs the demo service with args (--addr, --tick) until ctx ends and
// returns the process exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("demo-service", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "listen address")
	tick := fs.Duration("tick", 0, "log a line every tick")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *addr == "" {
		fmt.Fprintln(stderr, "demo-service: --addr is required")
		return 2
	}
	s := New("demo-service", stdout)
	s.Logf("pid %d starting on %s", os.Getpid(), *addr)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "demo-service: listen: %v\n", err)
		return 1
	}
	s.Tick(*tick)
	return s.Run(ctx, ln, stderr)
}

// JobMain is the demo's jobs, which its config runs as `svc-ctl demo-job
// KIND`: "fail" is a report that cannot reach its database (exit 2);
// "skip" is a sync whose upstream did not answer, which it reports as its
// own verdict through SVCCTL_RESULT (skipped upstream-down) and exits 0.
func JobMain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "demo-job: want ok, fail or skip")
		return 2
	}
	switch args[0] {
	case "ok":
		fmt.Fprintln(stdout, "hello: the reload added me; I run every minute and exit 0")
		return 0
	case "fail":
		fmt.Fprintln(stdout, "report: connecting to db.internal:5432")
		fmt.Fprintln(stdout, "report: dial tcp db.internal:5432: connection refused")
		return 2
	case "skip":
		fmt.Fprintln(stdout, "sync: GET https://api.example.com/feed")
		fmt.Fprintln(stdout, "sync: no answer within 5s; the next slot will try again")
		line := "skipped upstream-down: api.example.com did not answer within 5s\n"
		if err := os.WriteFile(os.Getenv("SVCCTL_RESULT"), []byte(line), 0o600); err != nil {
			fmt.Fprintf(stderr, "sync: could not report the skip: %v\n", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "demo-job: unknown kind %q: want ok, fail or skip\n", args[0])
	return 2
}
