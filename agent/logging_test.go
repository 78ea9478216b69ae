package agent

import (
	"bytes"
	"errors"
	"testing"
)

type refusing struct{ after int }

func (r *refusing) Write(p []byte) (int, error) {
	n := min(r.after, len(p))
	r.after -= n
	if n < len(p) {
		return n, errors.New("no space left on device")
	}
	return n, nil
}

// A line agent.log cannot take (its disk is full) goes to stderr, whole.
func TestFallbackWriterPassesOnWhatIsRefused(t *testing.T) {
	var alt bytes.Buffer
	w := fallbackWriter{w: &refusing{after: 4}, alt: &alt}
	n, err := w.Write([]byte("ledger.write_failing\n"))
	if err != nil || n != 21 || alt.String() != "ledger.write_failing\n" {
		t.Fatalf("Write = %d, %v; stderr got %q", n, err, alt.String())
	}
}
