package benchkit

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// Common are the flags every benchmark program takes.
type Common struct {
	Trials  int
	SvcCtl  string // prebuilt svc-ctl; "" = build it
	TestSvc string // prebuilt testsvc; "" = build it
	Keep    bool
}

// CommonFlags registers -trials, -svc-ctl, -testsvc and -keep on the default
// flag set.
func CommonFlags() *Common {
	c := &Common{}
	flag.IntVar(&c.Trials, "trials", 5, "trials per figure; each figure prints the median and range")
	flag.StringVar(&c.SvcCtl, "svc-ctl", "", "use this svc-ctl binary (default: go build ./cmd/svc-ctl)")
	flag.StringVar(&c.TestSvc, "testsvc", "", "use this testsvc binary (default: go build ./internal/testsvc/cmd/testsvc)")
	flag.BoolVar(&c.Keep, "keep", false, "keep the work directory (state dirs, logs) for inspection")
	return c
}

// Kit is one benchmark run: its work directory and the cleanups that stop
// everything it started.
type Kit struct {
	Common *Common
	Dir    string

	mu       sync.Mutex
	cleanups []func()
}

// Defer registers f to run at the end of the program, also after an error or
// a signal; cleanups run newest first.
func (k *Kit) Defer(f func()) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cleanups = append(k.cleanups, f)
}

func (k *Kit) cleanup() {
	k.mu.Lock()
	fs := k.cleanups
	k.cleanups = nil
	k.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// SubDir creates a fresh directory (0700) under the work directory.
func (k *Kit) SubDir(name string) (string, error) {
	d, err := os.MkdirTemp(k.Dir, name+"-")
	if err != nil {
		return "", fmt.Errorf("create work dir: %w", err)
	}
	return d, nil
}

// Main parses the flags, runs fn with a context that SIGINT/SIGTERM cancel,
// then runs every cleanup and exits 1 on error. name prefixes error messages.
func Main(name string, c *Common, fn func(ctx context.Context, k *Kit) error) {
	flag.Parse()
	if c.Trials < 1 {
		fmt.Fprintf(os.Stderr, "%s: -trials must be at least 1\n", name)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dir, err := os.MkdirTemp("", "svcctl-"+filepath.Base(name)+"-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	k := &Kit{Common: c, Dir: dir}
	if c.Keep {
		defer fmt.Fprintf(os.Stderr, "%s: work directory kept: %s\n", name, dir)
	} else {
		k.Defer(func() { os.RemoveAll(dir) })
	}
	err = fn(ctx, k)
	k.cleanup()
	if err != nil {
		if errors.Is(err, context.Canceled) && ctx.Err() != nil {
			err = fmt.Errorf("interrupted: %w", err)
		}
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
