package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/runtrace"
)

// LastFile is watchdog.last.json: the result of the last cycle of each
// service. It is the acceptance artifact: `verify` and the backstop check read
// its age, and it keeps a cycle's outcome when the ledger could not take it.
type LastFile struct {
	UpdatedAt time.Time              `json:"updated_at"`
	Services  map[string]*LastResult `json:"services"`
}

// LastResult is one service's entry.
type LastResult struct {
	Time        time.Time        `json:"time"`
	Trigger     runtrace.Trigger `json:"trigger"`
	Outcome     runtrace.Outcome `json:"outcome"`
	Reason      runtrace.Reason  `json:"reason"`
	Message     string           `json:"message"`
	RunID       int64            `json:"run_id,omitempty"`
	RecordError string           `json:"record_error,omitempty"`
	Detail      json.RawMessage  `json:"detail,omitempty"` // the cycle's detail, as its run row has it
}

// ReadLast reads watchdog.last.json; a missing file is an empty one.
func ReadLast(path string) (*LastFile, error) {
	lf := &LastFile{Services: map[string]*LastResult{}}
	b, err := fsutil.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return lf, nil
	}
	if err != nil {
		return lf, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(b, lf); err != nil {
		return &LastFile{Services: map[string]*LastResult{}}, fmt.Errorf("%s is damaged: %w", path, err)
	}
	if lf.Services == nil {
		lf.Services = map[string]*LastResult{}
	}
	return lf, nil
}

// UpdateLastAll merges several services' results at once: what a writer
// kept in memory while the file could not be written, with the newest.
func UpdateLastAll(path string, rs map[string]*LastResult, durable bool) error {
	fl := newFlock(path + ".lock")
	if err := fl.Lock(); err != nil {
		return fmt.Errorf("lock %s: %w", path, err)
	}
	defer fl.Unlock()
	lf, _ := ReadLast(path) // a damaged file is replaced: it is a cache of the newest results
	for service, r := range rs {
		lf.Services[service] = r
		if r.Time.After(lf.UpdatedAt) {
			lf.UpdatedAt = r.Time
		}
	}
	b, err := json.MarshalIndent(lf, "", "  ")
	if err != nil {
		return err
	}
	if !durable {
		return fsutil.ReplaceFile(path, append(b, '\n'), 0o600)
	}
	return fsutil.WriteFileAtomic(path, append(b, '\n'), 0o600)
}
