package agent

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"svcctl/internal/fsutil"
	"svcctl/state"
)

// ReloadRequest is what `svc-ctl reload` asks of the running agent: it
// writes it to <state>/reload.request, then wakes the agent (SIGHUP on
// unix, a named event on Windows: RequestReload). The agent reads and
// removes it when it reloads, and names its id in the row it records, so
// the command knows which row answers it. A reload without a request (a
// bare SIGHUP) takes the defaults.
type ReloadRequest struct {
	ID string    `json:"id"`
	At time.Time `json:"at"`
	By string    `json:"by,omitempty"`
	// StopRemoved: stop the instances of services the new config no longer
	// has (identity-checked, the whole tree). Without it they keep running,
	// no longer supervised.
	StopRemoved bool `json:"stop_removed,omitempty"`
	// AllowMissingInclude: take the file even when an include pattern that
	// matched files matches none now (config/include.go; refused without
	// it: a half-finished deploy must not read as removals).
	AllowMissingInclude bool `json:"allow_missing_include,omitempty"`
}

// reloadRequestTTL: a request older than this is not the answer to a
// signal arriving now (a reload whose signal never came); it is dropped.
const reloadRequestTTL = time.Minute

// WriteReloadRequest writes a request with a fresh id for the agent of p
// and returns it. Call RequestReload after.
func WriteReloadRequest(p state.Paths, stopRemoved, allowMissingInclude bool) (ReloadRequest, error) {
	b := make([]byte, 8)
	rand.Read(b)
	r := ReloadRequest{ID: hex.EncodeToString(b), At: time.Now().UTC(), By: state.Who(), StopRemoved: stopRemoved,
		AllowMissingInclude: allowMissingInclude}
	data, err := json.Marshal(r)
	if err != nil {
		return r, err
	}
	if err := fsutil.WriteFileAtomic(p.ReloadRequest(), append(data, '\n'), 0o600); err != nil {
		return r, fmt.Errorf("write the reload request: %w", err)
	}
	return r, nil
}

// takeReloadRequest reads and removes the pending request; none (or a
// stale or damaged one) is the zero request.
func takeReloadRequest(p state.Paths, now time.Time) (ReloadRequest, error) {
	data, err := fsutil.ReadFile(p.ReloadRequest())
	if errors.Is(err, fs.ErrNotExist) {
		return ReloadRequest{}, nil
	}
	os.Remove(p.ReloadRequest())
	if err != nil {
		return ReloadRequest{}, err
	}
	var r ReloadRequest
	if err := json.Unmarshal(data, &r); err != nil {
		return ReloadRequest{}, fmt.Errorf("%s is damaged: %w", p.ReloadRequest(), err)
	}
	if now.Sub(r.At) > reloadRequestTTL {
		return ReloadRequest{}, fmt.Errorf("a reload request from %s was never signalled: ignored", r.At.Format(time.RFC3339))
	}
	return r, nil
}
