package proc

import (
	"cmp"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
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

// Pending is the record written before a spawn: what owns the instance's
// tree, known before the fork (a Linux cgroup, a Windows job object), and
// the marker its processes will carry.
type Pending struct {
	Marker  string    `json:"marker"`
	UID     *uint32   `json:"uid,omitempty"`    // unix: the user the instance runs as
	Cgroup  string    `json:"cgroup,omitempty"` // Linux: the instance's cgroup
	Job     string    `json:"job,omitempty"`    // Windows: the instance's job object
	Console bool      `json:"console,omitempty"`
	Since   time.Time `json:"since"` // for people: when the spawn began
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
// of its cgroup or job object when it has one that can be read, else those
// carrying its marker as one whole environment entry and running as its
// user, really and effectively (the marker is 96 random bits made for this
// spawn, so no older process carries it; a record without a user names
// nothing on unix). The leader is the earliest of them whose parent is not
// one of them (a launcher that forked and exited leaves its server). False
// when no process is found (the spawn failed, or the instance ended).
func resolvePending(p Pending) (Instance, bool) {
	all, err := listProcs()
	if err != nil {
		return Instance{}, false
	}
	inst := Instance{Marker: p.Marker, UID: p.UID, Cgroup: p.Cgroup, Job: p.Job, Console: p.Console, Mode: ModePlain}
	switch {
	case p.Cgroup != "":
		inst.Mode = ModeCgroup
	case p.Job != "":
		inst.Mode = ModeJob
	}
	members := map[int32]bool{}
	if pids, _, err := containerPIDs(inst); err == nil && len(pids) > 0 {
		for _, pid := range pids {
			members[pid] = true
		}
	} else if p.UID != nil || runtime.GOOS == "windows" {
		entry := MarkerEnv + "=" + p.Marker
		for _, pi := range all {
			if pi.zombie {
				continue
			}
			if p.UID != nil {
				if r, e, ok := uidsOf(pi.pid); !ok || r != *p.UID || e != *p.UID {
					continue
				}
			}
			if env, err := environOf(pi.pid); err == nil && hasEntry(env, entry) {
				members[pi.pid] = true
			}
		}
	}
	var leaders []Identity
	for _, pi := range all {
		if members[pi.pid] && !pi.zombie && !members[pi.ppid] {
			if id, err := IdentityOf(pi.pid); err == nil {
				leaders = append(leaders, id)
			}
		}
	}
	if len(leaders) == 0 {
		return Instance{}, false
	}
	slices.SortFunc(leaders, func(a, b Identity) int {
		return cmp.Or(cmp.Compare(a.CreateTime, b.CreateTime), cmp.Compare(a.PID, b.PID))
	})
	inst.Identity = leaders[0]
	inst.Resolved = true
	return inst, true
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
