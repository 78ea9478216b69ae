package ui

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"

	"svcctl/config"
	"svcctl/report"
	"svcctl/watchdog"
)

//go:embed assets
var assets embed.FS

// pageFiles are the paths of the page's own files other than "/" (its
// script modules, style and icon), every file embedded under assets/: a
// module added there is served with no second list to keep.
func pageFiles() []string {
	var out []string
	fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && p != "assets/index.html" {
			out = append(out, strings.TrimPrefix(p, "assets"))
		}
		return nil
	})
	return out
}

// Options are what the page needs from the command that serves it.
type Options struct {
	// Config is the configuration the page shows (loaded by the caller as an
	// acting verb loads it), or, when the file does not load, what the state
	// dir alone says (report.StateOnlyConfig, its Path the file's).
	Config *config.Config
	// ConfigError is why the file does not load, when Config is the state
	// dir's; nil: it loaded.
	ConfigError error
	// Reload reads the config file again, as the caller loaded it at start:
	// the page calls it when the file's modification time or size changed
	// (one stat per /api/state). broken is why the file does not load (cfg
	// then the state dir's, as for ConfigError); cfg nil: nothing can be
	// shown instead (the file is gone, unreadable or refused), and the page
	// keeps what it showed, saying broken. nil: the page keeps Config.
	Reload func(ctx context.Context) (cfg *config.Config, broken error)
	// Version is this svc-ctl's, shown beside the agent's.
	Version string
	// Install says what the OS service manager knows of the agent (the
	// install package sits beside this one); nil: not asked.
	Install func() report.InstallInfo
	// Act gives one action its supervisor; nil: the page offers no actions.
	Act Actor
	// ToAgent hands a start or restart to the running agent, as the CLI
	// verbs do (so that the agent spawns the instance and owns its tree);
	// handed is false when no agent takes it: the action runs here. nil:
	// never handed.
	ToAgent func(ctx context.Context, sup *watchdog.Supervisor, action, name string) (r watchdog.Result, handed bool, err error)
	// Log receives ui.* events (actions, failed reads). Default: discard.
	Log *slog.Logger
	// Now is the clock. Default time.Now.
	Now func() time.Time
	// TokenUsed, when set, is called once, at the first request that
	// presents the token (the page is open): `ui --open` then deletes the
	// redirect file that carried it.
	TokenUsed func()
}

// Actor builds the supervisor for one action the way the CLI verbs build
// theirs (config.LoadToRun, state.Check, the ledger through notify's
// funnel), fresh each time: a config or state dir that turned unsafe since
// the page started is refused at the action. done closes what it opened.
type Actor func(ctx context.Context) (sup *watchdog.Supervisor, done func(), err error)

// Server is the status page of one configuration.
type Server struct {
	opts  Options
	token string

	view     atomic.Pointer[configView]
	reloadMu sync.Mutex // one look at the file at a time

	cpu      cpuSampler
	verify   cached[*report.VerifyReport]
	install  cached[report.InstallInfo]
	timeline sync.Map // range -> *cached[*Timeline]
	bg       sync.WaitGroup
}

// Wait returns once no background refresh (verify, the OS service
// manager) is running: Serve waits for them before it returns, so nothing
// reads the state dir after the page is gone.
func (s *Server) Wait() { s.bg.Wait() }

// New returns the page for opts, with a fresh random token.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{opts: opts, token: newToken()}
	v := &configView{cfg: opts.Config, broken: opts.ConfigError, shown: ShownFile, secrets: opts.Config.SecretValues()}
	if opts.ConfigError != nil {
		v.shown = ShownStateDir
	}
	// known stays false: the first look at the file reads it again, so a
	// change between the caller's load and now is not missed.
	s.view.Store(v)
	return s
}

// Token is the credential the printed URL carries.
func (s *Server) Token() string { return s.token }

// URL is the address to print and open for a listener at addr.
func (s *Server) URL(addr net.Addr) string { return pageURL(addr, s.token) }

// Handler serves the page, its assets and its API behind the guard, for a
// listener at addr (a loopback address limits the Host header).
func (s *Server) Handler(addr net.Addr) http.Handler {
	g := &guard{token: s.token, hosts: allowedHosts(addr), used: s.opts.TokenUsed}
	return g.wrap(s.mux())
}

func (s *Server) mux() *http.ServeMux {
	m := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	m.Handle("GET /{$}", files)
	for _, f := range pageFiles() {
		m.Handle("GET "+f, files)
	}
	m.HandleFunc("GET /api/state", s.handleState)
	m.HandleFunc("GET /api/timeline", s.handleTimeline)
	m.HandleFunc("GET /api/detail", s.handleDetail)
	m.HandleFunc("POST /api/actions/{action}", s.handleAction)
	// Anything else is a JSON error with its status, as every API answer.
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, errors.New("no such page or API path: "+r.URL.Path))
	})
	return m
}

// The page server's bounds: a slow or idle client cannot hold a
// connection for long, and at most maxConns are served at once (more wait
// in the kernel's queue): a local user flooding the port with idle
// connections costs this process no more than that. (Variables only so
// that a test can shorten them.)
var (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 15 * time.Second
	writeTimeout      = 60 * time.Second // a week of timeline on a slow disk
	idleTimeout       = 60 * time.Second
	maxConns          = 32
)

// Serve answers on ln until ctx ends, then shuts down (in-flight requests
// get a few seconds).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.Handler(ln.Addr()),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(s.opts.Log.Handler(), slog.LevelDebug),
	}
	ln = netutil.LimitListener(ln, maxConns)
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(sctx)
	}()
	err := hs.Serve(ln)
	<-done
	s.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// writeJSON answers v as JSON. It is encoded before the status is sent: a
// value that cannot be encoded is a 500 that says so, never a 200 with an
// empty body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(apiError{Error: "the answer could not be encoded: " + err.Error()})
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// apiError is every error the API answers: a sentence for the person.
type apiError struct {
	Error string `json:"error"`
}

func fail(w http.ResponseWriter, status int, err error) {
	writeJSON(w, status, apiError{Error: err.Error()})
}

// cached holds a value that is costly to compute (verify's quick_check, the
// OS service manager, a week of timeline) for a while. One computation runs
// at a time: a reader that arrives meanwhile waits for it and gets its
// answer instead of starting another.
type cached[T any] struct {
	mu      sync.Mutex
	at      time.Time
	ttl     time.Duration
	val     T
	have    bool
	running bool // a background refresh (peek) is under way
	gen     int  // reset's count: a refresh begun before a reset is not kept
}

// reset forgets the value: the next get or peek computes it again.
func (c *cached[T]) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var zero T
	c.val, c.have = zero, false
	c.gen++
}

// get returns the value, computing it when there is none or it is older
// than its ttl. The ttl adapts to the cost: at least min, and ten times
// what the last computation took, so a slow answer never takes more than a
// tenth of a core however often the page asks.
func (c *cached[T]) get(now time.Time, min time.Duration, compute func() T) T {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.have && now.Sub(c.at) < c.ttl {
		return c.val
	}
	start := time.Now()
	c.val, c.have, c.at = compute(), true, now
	c.ttl = max(min, 10*time.Since(start))
	return c.val
}

// peek returns the value at once, whatever its age (ok false: none yet),
// and starts one refresh in the background when it is missing or stale:
// for answers a page can show a little late (verify's quick_check reads
// the whole ledger; the OS service manager may take a while), so that
// /api/state never waits for them.
func (c *cached[T]) peek(bg *sync.WaitGroup, now time.Time, min time.Duration, compute func() T) (v T, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if (!c.have || now.Sub(c.at) >= c.ttl) && !c.running {
		c.running = true
		gen := c.gen
		bg.Go(func() {
			start := time.Now()
			v := compute()
			c.mu.Lock()
			defer c.mu.Unlock()
			c.running = false
			if gen != c.gen {
				return // computed from what was reset meanwhile
			}
			c.val, c.have, c.at = v, true, now
			c.ttl = max(min, 10*time.Since(start))
		})
	}
	return c.val, c.have
}

// queryTime reads a time given as Unix milliseconds (the page's timeline
// marks): absent is the zero time; one that is not a number, or outside
// the years 1970 to 9999, is an error naming the parameter.
func queryTime(r *http.Request, key string) (time.Time, error) {
	v := r.URL.Query().Get(key)
	if v == "" {
		return time.Time{}, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms < 0 || ms > maxQueryMillis {
		return time.Time{}, fmt.Errorf("%s=%q: want Unix milliseconds between 0 and %d (the years 1970 to 9999)", key, v, int64(maxQueryMillis))
	}
	return time.UnixMilli(ms).UTC(), nil
}

// maxQueryMillis is the last millisecond of the year 9999: JSON carries no later time.
const maxQueryMillis = 253402300799999
