package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"
)

// phase is how far a network check got. It turns a bare "timeout" into the
// answer a person needs: was nothing listening, or did it listen and hang?
type phase int32

const (
	phaseDial      phase = iota // no connection yet
	phaseConnected              // connected, no answer yet
	phaseAnswering              // the answer started but did not finish
)

func (p phase) String() string {
	switch p {
	case phaseConnected:
		return "connected, no answer"
	case phaseAnswering:
		return "connected, answer incomplete"
	default:
		return "no connection"
	}
}

// tracker records the furthest phase; dial and read callbacks may run on
// other goroutines.
type tracker struct{ p atomic.Int32 }

func (t *tracker) reach(p phase) {
	for {
		cur := t.p.Load()
		if cur >= int32(p) || t.p.CompareAndSwap(cur, int32(p)) {
			return
		}
	}
}

func (t *tracker) phase() phase { return phase(t.p.Load()) }

// timeoutReason names the timeout and how far the check got before it.
func timeoutReason(s Spec, what string) string {
	if s.Timeout > 0 {
		return fmt.Sprintf("timeout after %s (%s)", fmtDur(s.Timeout), what)
	}
	return fmt.Sprintf("timeout (%s)", what)
}

// netReason turns the error of a network check that reached phase p into a
// short reason. Timeouts come first: once the deadline passed, whatever the
// error says, the deadline is why.
func netReason(ctx context.Context, s Spec, err error, p phase) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return timeoutReason(s, p.String())
	case errors.Is(err, context.Canceled), ctx.Err() != nil:
		return "canceled before a verdict"
	case isRefused(err):
		return "connection refused"
	case isReset(err):
		return "connection reset by peer"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		if p >= phaseAnswering {
			return "connection closed mid-answer"
		}
		return "connection closed before an answer"
	}
	if r := dnsReason(err); r != "" {
		return r
	}
	if r := tlsReason(err); r != "" {
		return r
	}
	return innerMessage(err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// dnsReason is "" unless err is a lookup failure.
func dnsReason(err error) string {
	var de *net.DNSError
	if !errors.As(err, &de) {
		return ""
	}
	if de.IsNotFound {
		return "no such host " + de.Name
	}
	return fmt.Sprintf("dns lookup of %s failed: %s", de.Name, de.Err)
}

// tlsReason is "" unless err is a handshake or verification failure.
func tlsReason(err error) string {
	var cve *tls.CertificateVerificationError
	if errors.As(err, &cve) {
		return "tls: " + strings.TrimPrefix(cve.Err.Error(), "x509: ")
	}
	var rhe tls.RecordHeaderError
	if errors.As(err, &rhe) {
		return "tls: the server did not answer with TLS"
	}
	var ae tls.AlertError
	if errors.As(err, &ae) {
		return "tls: " + ae.Error()
	}
	return ""
}

// innerMessage drops the wrappers whose text names URLs (which may hold
// secrets) or repeats addresses, keeping the cause.
func innerMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

// fmtDur prints a duration the way people write it: "3h", "1h30m", "2s",
// "200ms", rounded to what matters at its size.
func fmtDur(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	switch {
	case d >= time.Hour:
		d = d.Round(time.Minute)
	case d >= time.Minute:
		d = d.Round(time.Second)
	case d >= time.Millisecond:
		d = d.Round(time.Millisecond)
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") { // "1h30m0s" -> "1h30m", "5m0s" -> "5m"
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") { // "3h0m" -> "3h"
		s = s[:len(s)-2]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// fmtLatency prints a latency in milliseconds with one decimal: "1.2ms".
func fmtLatency(d time.Duration) string {
	return fmt.Sprintf("%.1fms", float64(d.Microseconds())/1000)
}
