package notify

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"svcctl/config"
)

// Attempt is the result of one direct send through one channel.
type Attempt struct {
	Channel string
	Kind    string
	Latency time.Duration
	Err     error
}

// Test sends a test event through every channel of cfg, or the one named,
// at once and without the outbox, whatever their `on` says: `svc-ctl notify
// test`. An unknown name is an error naming the channels there are.
func Test(ctx context.Context, cfg *config.Config, name, host string) ([]Attempt, error) {
	var chans []config.Notify
	for _, n := range cfg.Notify {
		if name == "" || n.Name == name {
			chans = append(chans, n)
		}
	}
	if name != "" && len(chans) == 0 {
		names := make([]string, 0, len(cfg.Notify))
		for _, n := range cfg.Notify {
			names = append(names, n.Name)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no [[notify]] channel %q: %s has no [[notify]] table", name, configName(cfg))
		}
		return nil, fmt.Errorf("no [[notify]] channel %q in %s: the channels are %s", name, configName(cfg), strings.Join(names, ", "))
	}
	e := TestEvent(host, time.Now())
	return sendAll(ctx, chans, &e), nil
}

// SendDirect sends e through every channel that wants its kind, at once and
// without the outbox: for what cannot be queued because the outbox itself
// is unavailable (the ledger could not be opened). At most once: nothing
// retries it.
func SendDirect(ctx context.Context, cfg *config.Config, e *Event) []Attempt {
	var chans []config.Notify
	for _, n := range cfg.Notify {
		if n.Wants(e.Kind) {
			chans = append(chans, n)
		}
	}
	return sendAll(ctx, chans, e)
}

func sendAll(ctx context.Context, chans []config.Notify, e *Event) []Attempt {
	out := make([]Attempt, len(chans))
	var wg sync.WaitGroup
	for i, n := range chans {
		wg.Go(func() {
			out[i] = Attempt{Channel: n.Name, Kind: n.Kind}
			ch, err := Open(&n)
			if err != nil {
				out[i].Err = err
				return
			}
			sctx, cancel := context.WithTimeout(ctx, n.Timeout)
			defer cancel()
			start := time.Now()
			out[i].Err = ch.Send(sctx, e)
			out[i].Latency = time.Since(start)
		})
	}
	wg.Wait()
	return out
}

func configName(cfg *config.Config) string {
	if cfg.Path == "" {
		return "the config"
	}
	return cfg.Path
}
