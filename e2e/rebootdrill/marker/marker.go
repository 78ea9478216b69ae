// Package marker is the line format the drill guest prints on its evidence
// serial port and the host-side verdict reads back. A marker is one line:
//
//	DRILL boot=2 step=verify ok=true {"boot":2,"step":"verify",...}
//
// The words before the JSON are for people watching the log; only the JSON
// counts. The format must never carry anything but what the guest observed:
// the verdict is only as good as this evidence.
package marker

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Prefix starts every marker line.
const Prefix = "DRILL"

// Marker is one observation of the guest drill.
type Marker struct {
	Boot     int             `json:"boot"`
	Step     string          `json:"step"`
	Scenario string          `json:"scenario"`
	AtMS     int64           `json:"at_ms"` // guest wall clock, unix ms, when the step ended
	OK       bool            `json:"ok"`
	RC       int             `json:"rc"`               // exit code of the command; -1 when the step ran none
	Note     string          `json:"note,omitempty"`   // what went wrong, or a short fact
	Output   string          `json:"output,omitempty"` // the command's text output, capped
	Data     json.RawMessage `json:"data,omitempty"`   // structured output: the command's JSON or the step's facts
}

// Line formats m as one marker line without the newline. JSON escapes every
// control character, so the line never breaks.
func (m Marker) Line() (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode marker %s: %w", m.Step, err)
	}
	return fmt.Sprintf("%s boot=%d step=%s ok=%t %s", Prefix, m.Boot, m.Step, m.OK, b), nil
}

// Parse reads every marker line from r. Other lines (and anything a line
// carries before the prefix, such as a carriage return) are ignored; a line
// that starts like a marker but does not decode is an error, since a torn
// marker is lost evidence.
func Parse(r io.Reader) ([]Marker, error) {
	var out []Marker
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		i := strings.Index(line, Prefix+" boot=")
		if i < 0 {
			continue
		}
		j := strings.IndexByte(line[i:], '{')
		if j < 0 {
			return out, fmt.Errorf("line %d: marker without a JSON body: %q", n, line[i:])
		}
		var m Marker
		if err := json.Unmarshal([]byte(line[i+j:]), &m); err != nil {
			return out, fmt.Errorf("line %d: torn marker: %w", n, err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read markers: %w", err)
	}
	return out, nil
}
