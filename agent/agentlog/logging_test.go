package agentlog

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
	w := &fanout{ds: []logDestination{{name: "file", w: &refusing{after: 4}}}, stderr: &alt}
	n, err := w.Write([]byte("ledger.write_failing\n"))
	if err != nil || n != 21 || alt.String() != "ledger.write_failing\n" {
		t.Fatalf("Write = %d, %v; stderr got %q", n, err, alt.String())
	}
}

// No line twice: under the installed unit stderr is the journal, so a line
// that a destination took (the journal itself, or the file) is not copied
// to stderr; only a line no destination took is.
func TestFanoutStderrOnlyWhenNobodyTookIt(t *testing.T) {
	var journal, stderr bytes.Buffer
	w := &fanout{ds: []logDestination{{name: "file", w: &refusing{}}, {name: "journal", w: &journal}}, stderr: &stderr}
	if _, err := w.Write([]byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if journal.String() != "a\n" || stderr.Len() != 0 {
		t.Fatalf("journal %q, stderr %q: want the line in the journal once, nothing on stderr", journal.String(), stderr.String())
	}
	var console bytes.Buffer
	w.console = &console // a person's agent: its console gets every line, stderr none
	w.Write([]byte("b\n"))
	if console.String() != "b\n" || journal.String() != "a\nb\n" || stderr.Len() != 0 {
		t.Fatalf("console %q, journal %q, stderr %q", console.String(), journal.String(), stderr.String())
	}
}

// A person's agent whose every destination refuses a line still shows it
// on the console, and the write succeeds (the trouble is told elsewhere).
func TestFanoutConsoleSeesWhatNoDestinationTook(t *testing.T) {
	var console, stderr bytes.Buffer
	w := &fanout{ds: []logDestination{{name: "file", w: &refusing{}}}, console: &console, stderr: &stderr}
	n, err := w.Write([]byte("ledger.write_failing\n"))
	if err != nil || n != 21 || console.String() != "ledger.write_failing\n" || stderr.Len() != 0 {
		t.Fatalf("Write = %d, %v; console %q, stderr %q", n, err, console.String(), stderr.String())
	}
}
