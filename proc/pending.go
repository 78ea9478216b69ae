package proc

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"svcctl/internal/fsutil"
)

// A spawn has a window: between the fork and the write of the instance's
// record (WriteInstance), a caller killed (the agent SIGKILLed, the host's
// OOM killer) leaves a running instance no record names, which the next
// agent would take for a stranger on its port and `svc-ctl stop` could not
// stop. So the record of what the instance will be known by — its marker,
// its user, the time before its fork — is written first, beside the pid
// file (PendingPath), and ReadInstance resolves it: a process that carries
// the marker, runs as the user and started after that time is the
// instance's. WriteInstance removes it once the instance's own record is
// written.

// Pending is the record written before a spawn.
type Pending struct {
	Marker string    `json:"marker"`
	UID    *uint32   `json:"uid,omitempty"` // unix: the user the instance runs as
	Since  time.Time `json:"since"`         // before the fork: no process of the instance started earlier
}

// PendingPath is where the pending record of the instance whose record is
// at pidPath is kept.
func PendingPath(pidPath string) string { return pidPath + ".pending" }

// writePending records p before the spawn, as WriteInstance writes (synced,
// renamed into place).
func writePending(pidPath string, p Pending) error {
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return writeRecord(PendingPath(pidPath), b)
}

// clearPending removes the pending record: the instance's own record is
// written, or its spawn failed.
func clearPending(pidPath string) {
	if err := os.Remove(PendingPath(pidPath)); err == nil {
		syncDir(filepath.Dir(pidPath))
	}
}

// readPending reads the pending record beside pidPath: false when there is
// none or it cannot be read (then the pid file alone is the record).
func readPending(pidPath string) (Pending, bool) {
	f, err := fsutil.Open(PendingPath(pidPath)) // a planted link names nothing
	if err != nil {
		return Pending{}, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPidFile+1))
	var p Pending
	if err != nil || len(b) > maxPidFile || json.Unmarshal(b, &p) != nil || p.Marker == "" {
		return Pending{}, false
	}
	return p, true
}

// resolvePending finds the instance a pending record names: the processes
// carrying its marker as one whole environment entry, running as its user
// (really and effectively) and started no earlier than its time; the leader
// is the earliest of those whose parent is not one of them (a launcher that
// forked and exited leaves its server as the leader). False when no process
// carries it (the spawn failed, or the instance ended).
func resolvePending(p Pending) (Instance, bool) {
	all, err := listProcs()
	if err != nil {
		return Instance{}, false
	}
	entry := MarkerEnv + "=" + p.Marker
	since := p.Since.UnixMilli() - legacySlackMs
	marked := map[int32]Identity{}
	for _, pi := range all {
		if pi.zombie {
			continue
		}
		if p.UID != nil {
			if r, e, ok := uidsOf(pi.pid); !ok || r != *p.UID || e != *p.UID {
				continue
			}
		}
		if env, err := environOf(pi.pid); err != nil || !hasEntry(env, entry) {
			continue
		}
		id, err := IdentityOf(pi.pid)
		if err != nil || id.CreateTime < since {
			continue
		}
		marked[pi.pid] = id
	}
	var leaders []Identity
	for _, pi := range all {
		if id, ok := marked[pi.pid]; ok {
			if _, parentMarked := marked[pi.ppid]; !parentMarked {
				leaders = append(leaders, id)
			}
		}
	}
	if len(leaders) == 0 {
		return Instance{}, false
	}
	slices.SortFunc(leaders, func(a, b Identity) int { return int(a.CreateTime - b.CreateTime) })
	return Instance{Identity: leaders[0], Marker: p.Marker, UID: p.UID, Mode: ModePlain}, true
}

// pendingInstance is the instance a pending record beside pidPath names
// when it is not the one rec (the pid file's record; nil when there is
// none) already names.
func pendingInstance(pidPath string, rec *Instance) (Instance, bool) {
	p, ok := readPending(pidPath)
	if !ok || (rec != nil && rec.Marker == p.Marker) {
		return Instance{}, false
	}
	return resolvePending(p)
}
