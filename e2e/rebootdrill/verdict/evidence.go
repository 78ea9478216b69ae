package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the same driver svc-ctl writes with

	"svcctl/e2e/rebootdrill/marker"
)

// inputs are the command line: where the evidence is.
type inputs struct {
	scenario, markers, db, service string
	qemuExit                       int
	timedOut                       bool
}

// evidence is everything the verdict may look at.
type evidence struct {
	in      inputs
	markers []marker.Marker
	markErr error // the log could not be read or held a torn marker
	rows    []row
	dbErr   error
	byStep  map[int]map[string]marker.Marker // boot -> step -> last marker of it
	maxBoot int
}

// row is one run_trace row as svc-ctl stored it. Boot is the boot id the
// row was written in (run_trace.boot_id): what tells it to a boot.
type row struct {
	ID        int64
	JobID     string
	Trigger   string
	StartedAt time.Time
	Outcome   string
	Reason    string
	Boot      string
}

func (r row) String() string {
	return fmt.Sprintf("#%d %s %s %s %s/%s", r.ID, r.JobID, r.Trigger, r.StartedAt.UTC().Format(time.RFC3339), r.Outcome, r.Reason)
}

func load(in inputs) *evidence {
	ev := &evidence{in: in, byStep: map[int]map[string]marker.Marker{}}
	f, err := os.Open(in.markers)
	if err != nil {
		ev.markErr = fmt.Errorf("open markers: %w", err)
	} else {
		ev.markers, ev.markErr = marker.Parse(f)
		f.Close()
	}
	for _, m := range ev.markers {
		if ev.byStep[m.Boot] == nil {
			ev.byStep[m.Boot] = map[string]marker.Marker{}
		}
		ev.byStep[m.Boot][m.Step] = m
		ev.maxBoot = max(ev.maxBoot, m.Boot)
	}
	if in.db == "" {
		ev.dbErr = fmt.Errorf("no database was read back from the guest")
	} else {
		ev.rows, ev.dbErr = readRows(in.db)
	}
	return ev
}

// readRows reads run_trace from a copy of the guest's database (a WAL file
// beside it, if any, is replayed by sqlite on open).
func readRows(path string) ([]row, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("read back %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer db.Close()
	rs, err := db.Query(`SELECT id, job_id, trigger, started_at, outcome, COALESCE(reason, ''), COALESCE(boot_id, '') FROM run_trace ORDER BY id`)
	if err != nil && strings.Contains(err.Error(), "no such column: boot_id") {
		return nil, fmt.Errorf("run_trace in %s has no boot_id column: the guest's svc-ctl does not record the boot a row was written in, so no row can be told to a boot", path)
	}
	if err != nil {
		return nil, fmt.Errorf("query run_trace in %s: %w", path, err)
	}
	defer rs.Close()
	var out []row
	for rs.Next() {
		var r row
		var ms int64
		if err := rs.Scan(&r.ID, &r.JobID, &r.Trigger, &ms, &r.Outcome, &r.Reason, &r.Boot); err != nil {
			return nil, fmt.Errorf("scan run_trace: %w", err)
		}
		r.StartedAt = time.UnixMilli(ms)
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("read run_trace: %w", err)
	}
	return out, nil
}

// step returns the last marker of step in boot.
func (ev *evidence) step(boot int, step string) (marker.Marker, bool) {
	m, ok := ev.byStep[boot][step]
	return m, ok
}

// btime is the guest's boot time of boot n, as the guest's kernel had it.
func (ev *evidence) btime(n int) (time.Time, bool) {
	m, ok := ev.step(n, "boot")
	var d struct {
		Btime int64 `json:"btime"`
	}
	if !ok || json.Unmarshal(m.Data, &d) != nil || d.Btime == 0 {
		return time.Time{}, false
	}
	return time.Unix(d.Btime, 0), true
}

// bootID is the kernel's boot id of boot n, as the guest read it.
func (ev *evidence) bootID(n int) (string, bool) {
	m, ok := ev.step(n, "boot")
	id := text(m, "boot_id")
	return id, ok && id != ""
}

// inBoot reports whether r was written in boot n: by the boot id the row
// records, never by its time (a row written a second before a reboot and
// the next boot's first rows are within any clock slack of each other).
func (ev *evidence) inBoot(r row, n int) bool {
	id, ok := ev.bootID(n)
	return ok && r.Boot == id
}

// field reads one number from a marker's data.
func field(m marker.Marker, key string) int64 {
	var d map[string]json.Number
	if json.Unmarshal(m.Data, &d) != nil {
		return 0
	}
	n, _ := d[key].Int64()
	return n
}

// text reads one string from a marker's data.
func text(m marker.Marker, key string) string {
	var d map[string]any
	if json.Unmarshal(m.Data, &d) != nil {
		return ""
	}
	s, _ := d[key].(string)
	return s
}

// rowsWhere returns the rows that match.
func (ev *evidence) rowsWhere(match func(row) bool) []row {
	var out []row
	for _, r := range ev.rows {
		if match(r) {
			out = append(out, r)
		}
	}
	return out
}
