package runtrace

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// MaxDetail caps the stored detail JSON. Detail is evidence for a person
// (exit code, probe results, pid), not a log: a bigger value is cut.
const MaxDetail = 8 << 10

// encodeDetail turns a caller's detail into compact JSON text of at most
// MaxDetail bytes, or nil (NULL) for none. json.RawMessage and []byte are
// taken as JSON and compacted; anything else is marshalled. Over the cap the
// result is still valid JSON:
// {"truncated":true,"original_bytes":N,"head":"<the first bytes, as a string>"}.
func encodeDetail(detail any) (any, error) {
	var raw []byte
	switch d := detail.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		raw = d
	case []byte:
		raw = d
	default:
		b, err := json.Marshal(detail)
		if err != nil {
			return nil, fmt.Errorf("encode run detail: %w", err)
		}
		raw = b
	}
	if len(raw) == 0 {
		return nil, nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("run detail is not valid JSON: %w", err)
	}
	if buf.String() == "null" {
		return nil, nil
	}
	if buf.Len() <= MaxDetail {
		return buf.String(), nil
	}
	return truncateDetail(buf.Bytes())
}

type truncated struct {
	Truncated     bool   `json:"truncated"`
	OriginalBytes int    `json:"original_bytes"`
	Head          string `json:"head"`
}

// truncateDetail keeps as much of the head as fits once escaped; escaping
// can grow the text, so it shrinks by the overshoot until it fits.
func truncateDetail(full []byte) (any, error) {
	n := MaxDetail - 64
	for n > 0 {
		head := trimPartialRune(full[:n])
		b, err := json.Marshal(truncated{Truncated: true, OriginalBytes: len(full), Head: string(head)})
		if err != nil {
			return nil, fmt.Errorf("encode truncated run detail: %w", err)
		}
		if len(b) <= MaxDetail {
			return string(b), nil
		}
		n -= len(b) - MaxDetail
	}
	return `{"truncated":true}`, nil
}

// trimPartialRune drops a multi-byte character cut in half at the end.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax-1 && len(b) > 0; i++ {
		if r, size := utf8.DecodeLastRune(b); r != utf8.RuneError || size != 1 {
			break
		}
		b = b[:len(b)-1]
	}
	return b
}
