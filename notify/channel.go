package notify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"svcctl/config"
)

// Channel delivers events through one [[notify]] table. Send returns nil
// when the receiver took the event; an error wrapped by Permanent when the
// receiver refused the event itself (retrying cannot help: a 400, a 404); any
// other error is retried later. The context's deadline is the channel's
// timeout. One file per kind: webhook.go, ntfy.go, healthchecks.go,
// desktop.go, command.go, otlp.go, smtp.go.
type Channel interface {
	Send(ctx context.Context, e *Event) error
}

// opener builds the channel of one kind from its table.
type opener func(n *config.Notify) (Channel, error)

// kinds is the name -> opener table; config.NotifyKinds holds the same
// names, and a test keeps the two equal. A kind whose keys are declared in
// its own file adds itself with register; the others' keys are in
// config/raw.go.
var kinds = map[string]opener{
	config.NotifyWebhook:      openWebhook,
	config.NotifyNtfy:         openNtfy,
	config.NotifyHealthchecks: openHealthchecks,
	config.NotifyDesktop:      openDesktop,
	config.NotifyCommand:      openCommand,
	config.NotifyOTLP:         openOTLP,
}

// register adds a channel kind from its own file's init: its keys to
// config's one schema, its opener to kinds. Adding a channel is that file,
// its test and its docs (docs/architecture.md, "Where to add").
func register(k config.NotifyKind, open opener) {
	config.RegisterNotifyKind(k)
	kinds[k.Name] = open
}

// Open builds the channel n describes.
func Open(n *config.Notify) (Channel, error) {
	open, ok := kinds[n.Kind]
	if !ok {
		return nil, fmt.Errorf("notify channel %s: unknown kind %q", n.Name, n.Kind)
	}
	ch, err := open(n)
	if err != nil {
		return nil, fmt.Errorf("notify channel %s: %w", n.Name, err)
	}
	return ch, nil
}

// permanentError marks a refusal that retrying cannot change.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// Permanent marks err as a refusal of the event itself: the delivery ends
// as failed instead of being retried.
func Permanent(err error) error { return &permanentError{err} }

// IsPermanent reports whether err (or one it wraps) was marked Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// retryAfterError carries a receiver's Retry-After.
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// retryAfter returns the wait a receiver asked for, if any.
func retryAfter(err error) (time.Duration, bool) {
	var r *retryAfterError
	if errors.As(err, &r) {
		return r.after, true
	}
	return 0, false
}
