// Package demosvc is the service `svc-ctl demo` supervises: a small HTTP
// service that answers /health and can be told to die or hang, the two ways
// the demo shows the watchdog at work. It is the only service code linked
// into svc-ctl; the tests' service (internal/testsvc) builds on it.
//
// Control endpoints (any method):
//
//	/control/hang    from now on /health never answers (the process stays alive)
//	/control/crash   exit(3) at once
package demosvc

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
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
	Mux    *http.ServeMux
}

// New returns a service that answers /health with 200 "ok" and writes its
// lines, prefixed with name, to out.
func New(name string, out io.Writer) *Service {
	s := &Service{name: name, out: out, Mux: http.NewServeMux()}
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
		os.Exit(3)
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

// Serve answers on ln until it fails.
func (s *Service) Serve(ln net.Listener) error {
	s.Logf("listening on %s", ln.Addr())
	srv := &http.Server{Handler: s.Mux, ReadHeaderTimeout: 10 * time.Second}
	return srv.Serve(ln)
}

// Main runs the demo service with args (--addr, --tick) and returns the
// process exit code. It only returns on a usage or listen error.
func Main(args []string, stdout, stderr io.Writer) int {
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
	fmt.Fprintf(stderr, "demo-service: serve: %v\n", s.Serve(ln))
	return 1
}
