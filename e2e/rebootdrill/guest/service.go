package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"svcctl/e2e/rebootdrill/marker"
)

// pollEvery is how often a wait looks again. Every wait has a deadline.
const pollEvery = 500 * time.Millisecond

var client = &http.Client{Timeout: 2 * time.Second}

func (d *drill) url(path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", d.o.port, path)
}

// healthy is the same judgement the agent makes: /health answers 200.
func (d *drill) healthy(ctx context.Context) bool {
	_, code, err := d.get(ctx, "/health")
	return err == nil && code == http.StatusOK
}

// pid asks the service itself which process answers (testsvc's /pid).
func (d *drill) pid(ctx context.Context) (int, error) {
	body, code, err := d.get(ctx, "/pid")
	if err != nil {
		return 0, err
	}
	if code != http.StatusOK {
		return 0, fmt.Errorf("get /pid: status %d", code)
	}
	n, err := strconv.Atoi(strings.TrimSpace(body))
	if err != nil {
		return 0, fmt.Errorf("get /pid: %w", err)
	}
	return n, nil
}

func (d *drill) get(ctx context.Context, path string) (string, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url(path), nil)
	if err != nil {
		return "", 0, fmt.Errorf("get %s: %w", path, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", 0, fmt.Errorf("get %s: %w", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return string(b), resp.StatusCode, err
}

// serviceUp waits until the service is healthy, started by whoever is
// supposed to start it; the drill never starts it.
func (d *drill) serviceUp(ctx context.Context, step string, wait time.Duration) int {
	start := time.Now()
	for {
		if d.healthy(ctx) {
			pid, err := d.pid(ctx)
			if err == nil {
				d.emitWait(step, true, start, map[string]any{"pid": pid}, "")
				return pid
			}
		}
		if time.Since(start) > wait {
			d.emitWait(step, false, start, nil, fmt.Sprintf("not healthy within %s", wait))
			return 0
		}
		time.Sleep(pollEvery)
	}
}

// kill kills the service's process on purpose (SIGKILL: no chance to say
// goodbye) and returns its pid, or 0 when there was nothing to kill.
func (d *drill) kill(step string) int {
	pid, err := d.pid(context.Background())
	if err != nil {
		d.fail(step, err)
		return 0
	}
	at := time.Now().UnixMilli()
	if err := killProcess(pid); err != nil {
		d.fail(step, fmt.Errorf("kill %d: %w", pid, err))
		return 0
	}
	data, _ := json.Marshal(map[string]any{"pid": pid, "killed_at_ms": at})
	d.emit(marker.Marker{Step: step, OK: true, RC: -1, Data: data})
	return pid
}

// restored waits until a different process answers healthy.
func (d *drill) restored(ctx context.Context, step string, old int, wait time.Duration) {
	start := time.Now()
	for {
		if pid, err := d.pid(ctx); err == nil && pid != old && d.healthy(ctx) {
			d.emitWait(step, true, start, map[string]any{"pid": pid, "old_pid": old}, "")
			return
		}
		if time.Since(start) > wait {
			d.emitWait(step, false, start, map[string]any{"old_pid": old},
				fmt.Sprintf("no new healthy process within %s", wait))
			return
		}
		time.Sleep(pollEvery)
	}
}

func (d *drill) emitWait(step string, ok bool, start time.Time, data map[string]any, note string) {
	if data == nil {
		data = map[string]any{}
	}
	data["waited_ms"] = time.Since(start).Milliseconds()
	b, _ := json.Marshal(data)
	d.emit(marker.Marker{Step: step, OK: ok, RC: -1, Data: b, Note: note})
}

// tree checks the service as svc-ctl sees it now (`status NAME --json`):
// the wrapper and the server it runs, both in the instance's tree, owned by
// the instance's cgroup (the agent runs under its unit with Delegate=yes).
// It waits a little: right after a restart the tree may still be forming.
func (d *drill) tree(ctx context.Context, step string, wait time.Duration) {
	start := time.Now()
	var last string
	for {
		r := d.command(ctx, d.o.svcctl, "status", d.o.service, "--json", "--config", d.o.config)
		var st struct {
			Services []struct {
				Instance *struct {
					Processes int      `json:"processes"`
					Via       []string `json:"via"`
					Cgroup    string   `json:"cgroup"`
					PIDs      []int32  `json:"pids"`
				} `json:"instance"`
			} `json:"services"`
		}
		err := json.Unmarshal(r.stdout, &st)
		switch {
		case err != nil:
			last = "status --json: " + err.Error()
		case len(st.Services) != 1 || st.Services[0].Instance == nil:
			last = "status shows no instance"
		default:
			in := st.Services[0].Instance
			data := map[string]any{"processes": in.Processes, "via": in.Via, "cgroup": in.Cgroup, "pids": in.PIDs}
			if in.Processes == 2 && strings.Contains(strings.Join(in.Via, ","), "cgroup") {
				d.emitWait(step, true, start, data, "")
				return
			}
			last = fmt.Sprintf("tree of %d processes via %v (cgroup %q): want the wrapper and the server, via cgroup", in.Processes, in.Via, in.Cgroup)
		}
		if time.Since(start) > wait {
			d.emitWait(step, false, start, nil, last)
			return
		}
		time.Sleep(pollEvery)
	}
}
