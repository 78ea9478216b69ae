package otlp

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// gate is the variable .ci/run sets: the test builds a collector (a minute
// the first time) and runs a real agent for about a minute.
const gate = "SVCCTL_E2E_OTLP"

// TestAgentToCollector: a real agent exports to a real OpenTelemetry
// Collector (its OTLP receiver) on 127.0.0.1. Then the collector goes down
// for a while, the agent is SIGKILLed while it is down and started again,
// the collector comes back: every notable row and every event the ledger
// holds for the channel arrives, with the documented attributes, and an id
// arrives twice only from one request that was in flight.
func TestAgentToCollector(t *testing.T) {
	if os.Getenv(gate) != "1" {
		t.Skipf("set %s=1 to build an OpenTelemetry Collector and run an agent against it (.ci/run does)", gate)
	}
	if runtime.GOOS != "linux" {
		t.Skip("linux only: the agent it runs has Unix commands (/bin/sleep, /bin/true) and is SIGKILLed")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	bin := build(t, dir)
	port := freePort(t)
	out := filepath.Join(dir, "received.jsonl")
	col := &collector{t: t, bin: bin.collector, conf: writeCollectorConfig(t, dir, port, out), log: filepath.Join(dir, "collector.log")}
	col.start(port)

	state := filepath.Join(dir, "state")
	conf := filepath.Join(dir, "svc-ctl.toml")
	writeFile(t, conf, fmt.Sprintf(`[agent]
state_dir = %q
heartbeat = "2s"

[[service]]
name     = "idle"
command  = ["/bin/sleep", "3600"]
interval = "2s"
  [service.health]
  exec = ["/bin/true"]

[[job]]
name     = "tick"
schedule = "@every 2s"
timezone = "UTC"
command  = ["/bin/true"]

[[job]]
name     = "flaky"
schedule = "@every 3s"
timezone = "UTC"
command  = ["/bin/false"]

[[notify]]
name          = "otel"
kind          = "otlp"
url           = "http://127.0.0.1:%d"
timeout       = "2s"
metrics_every = "10s"
`, state, port))
	agent := startAgent(t, bin.svcctl, conf, filepath.Join(dir, "agent1.out"))

	// Phase 1: rows, events and metrics flow.
	waitFor(t, 60*time.Second, "a failed run, its job.failed event and metrics", func() bool {
		r := read(t, out)
		return r.runOutcome["failed"] > 0 && r.events["job.failed"] > 0 && r.metrics["svcctl.cycles"]
	})

	// Phase 2: the collector is down; the agent goes on, is SIGKILLed,
	// starts again; then the collector comes back.
	col.kill()
	time.Sleep(8 * time.Second) // rows and events pile up while it is down
	agent.Process.Signal(syscall.SIGKILL)
	agent.Wait()
	agent = startAgent(t, bin.svcctl, conf, filepath.Join(dir, "agent2.out"))
	time.Sleep(4 * time.Second)
	col.start(port)

	db := openLedger(t, filepath.Join(state, "svc-ctl.db"))
	var want ledgerIDs
	waitFor(t, 120*time.Second, "every row and event of the ledger at the collector", func() bool {
		want = ledger(t, db)
		got := read(t, out)
		return len(missing(want.runs, got.runIDs)) == 0 && len(missing(want.events, got.eventIDs)) == 0
	})
	agent.Process.Signal(syscall.SIGTERM)
	agent.Wait()
	got := read(t, out)
	t.Logf("ledger: %d notable rows, %d events; received: %d run records, %d event records in %d requests",
		len(want.runs), len(want.events), len(got.runIDs), len(got.eventIDs), got.requests)

	// Attributes: the documented resource on every request, the same
	// service.instance.id across the SIGKILL (it is kept in the state dir).
	host, _ := os.Hostname()
	if len(got.instanceIDs) != 1 {
		t.Errorf("service.instance.id values %v, want one, the same across the restart", got.instanceIDs)
	}
	for k, v := range map[string]string{"service.name": "svc-ctl", "os.type": "linux", "host.name": host} {
		if len(got.resource[k]) != 1 || !got.resource[k][v] {
			t.Errorf("resource %s = %v, want %q everywhere", k, got.resource[k], v)
		}
	}
	if len(got.resource["host.id"]) != 1 || got.resource["host.id"][""] {
		t.Errorf("host.id = %v, want one non-empty value", got.resource["host.id"])
	}
	if got.missingAttrs != "" {
		t.Error(got.missingAttrs)
	}
	// Repeats only from the batch in flight: an id received twice must
	// have come first in one request (per kind), the one whose answer was
	// lost when the collector went down.
	for kind, reqs := range got.firstOfRepeats {
		if len(reqs) > 1 {
			t.Errorf("%s ids repeated from %d requests (%v), want at most one batch in flight", kind, len(reqs), reqs)
		}
	}
}

type binaries struct{ svcctl, collector string }

// build builds svc-ctl from the repository and the collector of this module.
func build(t *testing.T, dir string) binaries {
	t.Helper()
	b := binaries{svcctl: filepath.Join(dir, "svc-ctl"), collector: filepath.Join(dir, "collector")}
	run := func(wd string, args ...string) {
		cmd := exec.Command("go", args...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %v: %v\n%s", args, err, out)
		}
	}
	run("../..", "build", "-o", b.svcctl, "./cmd/svc-ctl")
	run(".", "build", "-o", b.collector, "./collector")
	return b
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

func writeCollectorConfig(t *testing.T, dir string, port int, out string) string {
	path := filepath.Join(dir, "collector.yaml")
	writeFile(t, path, fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  jsonfile:
    path: %s
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      receivers: [otlp]
      exporters: [jsonfile]
    metrics:
      receivers: [otlp]
      exporters: [jsonfile]
`, port, out))
	return path
}

type collector struct {
	t              *testing.T
	bin, conf, log string
	cmd            *exec.Cmd
}

func (c *collector) start(port int) {
	c.t.Helper()
	f, err := os.OpenFile(c.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		c.t.Fatal(err)
	}
	c.cmd = exec.Command(c.bin, "--config", "file:"+c.conf)
	c.cmd.Stdout, c.cmd.Stderr = f, f
	if err := c.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	cmd := c.cmd
	c.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitFor(c.t, 30*time.Second, "the collector to listen", func() bool {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			conn.Close()
		}
		return err == nil
	})
}

func (c *collector) kill() {
	c.cmd.Process.Kill()
	c.cmd.Wait()
}

func startAgent(t *testing.T, bin, conf, logPath string) *exec.Cmd {
	t.Helper()
	f, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "agent", "--config", conf)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// received is what the collector wrote, read back.
type received struct {
	requests       int
	runIDs         map[string]int // svcctl.run_id -> times received
	eventIDs       map[string]int
	runOutcome     map[string]int
	events         map[string]int
	metrics        map[string]bool
	resource       map[string]map[string]bool
	instanceIDs    map[string]bool
	firstOfRepeats map[string]map[int]bool // kind -> requests that first carried a repeated id
	missingAttrs   string
}

type kv struct {
	Key   string `json:"key"`
	Value struct {
		String string `json:"stringValue"`
		Int    string `json:"intValue"`
	} `json:"value"`
}

type line struct {
	ResourceLogs []struct {
		Resource  struct{ Attributes []kv } `json:"resource"`
		ScopeLogs []struct {
			LogRecords []struct {
				Attributes []kv `json:"attributes"`
			} `json:"logRecords"`
		} `json:"scopeLogs"`
	} `json:"resourceLogs"`
	ResourceMetrics []struct {
		Resource     struct{ Attributes []kv } `json:"resource"`
		ScopeMetrics []struct {
			Metrics []struct {
				Name string `json:"name"`
			} `json:"metrics"`
		} `json:"scopeMetrics"`
	} `json:"resourceMetrics"`
}

func attrs(kvs []kv) map[string]string {
	m := map[string]string{}
	for _, a := range kvs {
		v := a.Value.String
		if v == "" {
			v = a.Value.Int
		}
		m[a.Key] = v
	}
	return m
}

func read(t *testing.T, path string) received {
	t.Helper()
	r := received{runIDs: map[string]int{}, eventIDs: map[string]int{}, runOutcome: map[string]int{}, events: map[string]int{},
		metrics: map[string]bool{}, resource: map[string]map[string]bool{}, instanceIDs: map[string]bool{},
		firstOfRepeats: map[string]map[int]bool{}}
	f, err := os.Open(path)
	if err != nil {
		return r
	}
	defer f.Close()
	first := map[string]int{} // kind/id -> request that first carried it
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var missingAttrs []string
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("collector output: %v", err)
		}
		r.requests++
		noteResource := func(kvs []kv) {
			for k, v := range attrs(kvs) {
				if r.resource[k] == nil {
					r.resource[k] = map[string]bool{}
				}
				r.resource[k][v] = true
			}
			r.instanceIDs[attrs(kvs)["service.instance.id"]] = true
		}
		for _, rm := range l.ResourceMetrics {
			noteResource(rm.Resource.Attributes)
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					r.metrics[m.Name] = true
				}
			}
		}
		for _, rl := range l.ResourceLogs {
			noteResource(rl.Resource.Attributes)
			for _, sl := range rl.ScopeLogs {
				for _, rec := range sl.LogRecords {
					a := attrs(rec.Attributes)
					var kind, id string
					switch a["svcctl.record"] {
					case "run":
						kind, id = "run", a["svcctl.run_id"]
						r.runIDs[id]++
						r.runOutcome[a["svcctl.outcome"]]++
						for _, k := range []string{"svcctl.run_id", "svcctl.subject", "svcctl.trigger", "svcctl.outcome"} {
							if a[k] == "" {
								missingAttrs = append(missingAttrs, fmt.Sprintf("run record without %s: %v", k, a))
							}
						}
					case "event":
						kind, id = "event", a["svcctl.event_id"]
						r.eventIDs[id]++
						r.events[a["svcctl.event"]]++
						for _, k := range []string{"svcctl.event_id", "svcctl.event", "svcctl.subject"} {
							if a[k] == "" {
								missingAttrs = append(missingAttrs, fmt.Sprintf("event record without %s: %v", k, a))
							}
						}
					default:
						missingAttrs = append(missingAttrs, fmt.Sprintf("record without svcctl.record: %v", a))
						continue
					}
					key := kind + "/" + id
					if req, seen := first[key]; seen {
						if r.firstOfRepeats[kind] == nil {
							r.firstOfRepeats[kind] = map[int]bool{}
						}
						r.firstOfRepeats[kind][req] = true
					} else {
						first[key] = r.requests
					}
				}
			}
		}
	}
	if len(missingAttrs) > 0 {
		r.missingAttrs = strings.Join(missingAttrs[:min(5, len(missingAttrs))], "\n")
	}
	return r
}

func openLedger(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

type ledgerIDs struct{ runs, events []string }

// ledger lists what the channel owes the collector: every finished row
// that is not a routine healthy cycle (rows = "notable") and every event
// queued for the channel.
func ledger(t *testing.T, db *sql.DB) ledgerIDs {
	t.Helper()
	var l ledgerIDs
	q := func(query string) []string {
		rows, err := db.QueryContext(context.Background(), query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		defer rows.Close()
		var out []string
		for rows.Next() {
			var s string
			rows.Scan(&s)
			out = append(out, s)
		}
		return out
	}
	l.runs = q(`SELECT CAST(id AS TEXT) FROM run_trace WHERE seq IS NOT NULL AND NOT (outcome = 'ok' AND reason = 'already-running')`)
	l.events = q(`SELECT event_id FROM deliveries WHERE channel = 'otel'`)
	return l
}

func missing(want []string, got map[string]int) []string {
	var out []string
	for _, id := range want {
		if got[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}
