package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"svcctl/e2e/rebootdrill/marker"
)

// maxOutput caps what one marker carries of a command's output: the serial
// port is slow and the database read back after power-off has the rest.
const maxOutput = 32 << 10

// commandTimeout bounds every command the drill runs.
const commandTimeout = 60 * time.Second

// drill is the state of one boot's run.
type drill struct {
	o    options
	out  io.Writer
	boot int
}

// emit prints m on the evidence port, and a short line on stdout (the
// console) for whoever watches the boot.
func (d *drill) emit(m marker.Marker) {
	m.Boot, m.Scenario = d.boot, d.o.scenario
	if m.AtMS == 0 {
		m.AtMS = time.Now().UnixMilli()
	}
	line, err := m.Line()
	if err != nil {
		line = fmt.Sprintf("%s boot=%d step=%s ok=false {\"boot\":%d,\"step\":%q,\"rc\":-1,\"note\":%q}",
			marker.Prefix, d.boot, m.Step, d.boot, m.Step, err.Error())
	}
	// one write per line, so nothing interleaves inside a marker
	if _, err := io.WriteString(d.out, line+"\n"); err != nil {
		fmt.Fprintf(os.Stderr, "drill-guest: write marker: %v\n", err)
	}
	fmt.Printf("DRILL boot=%d step=%s ok=%t rc=%d %s\n", d.boot, m.Step, m.OK, m.RC, m.Note)
}

func (d *drill) fail(step string, err error) {
	d.emit(marker.Marker{Step: step, RC: -1, Note: err.Error()})
}

// facts records what the verdict compares everything else with: the guest's
// boot time and boot id, as the kernel has them. The boot id is what tells a
// run_trace row to its boot (the row records the boot it was written in).
func (d *drill) facts() {
	btime, err := bootTime()
	if err != nil {
		d.fail("boot", err)
		return
	}
	id, err := bootID()
	if err != nil {
		d.fail("boot", err)
		return
	}
	data, _ := json.Marshal(map[string]any{"btime": btime, "boot_id": id, "kernel": kernelRelease()})
	d.emit(marker.Marker{Step: "boot", OK: true, RC: -1, Data: data})
}

// result is one finished command.
type result struct {
	rc     int
	stdout []byte
	stderr []byte
	err    error // set when the command could not run at all, or timed out
}

func (d *drill) command(ctx context.Context, name string, args ...string) result {
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.rc, r.err = -1, fmt.Errorf("%s %s: timed out after %s", name, strings.Join(args, " "), commandTimeout)
	case errors.As(err, &ee):
		r.rc = ee.ExitCode()
	case err != nil:
		r.rc, r.err = -1, fmt.Errorf("run %s: %w", name, err)
	}
	return r
}

// marker turns a command's result into a marker: JSON on stdout becomes
// Data, everything else is kept as text.
func (r result) marker(step string) marker.Marker {
	m := marker.Marker{Step: step, RC: r.rc, OK: r.rc == 0 && r.err == nil}
	text := r.stderr
	var compact bytes.Buffer
	if len(bytes.TrimSpace(r.stdout)) > 0 && json.Compact(&compact, r.stdout) == nil && compact.Len() <= maxOutput {
		m.Data = compact.Bytes()
	} else {
		text = append(append([]byte{}, r.stdout...), r.stderr...)
	}
	if len(text) > maxOutput {
		text = append(text[:maxOutput:maxOutput], "\n[truncated]"...)
	}
	m.Output = string(text)
	if r.err != nil {
		m.Note = r.err.Error()
	}
	return m
}

// svcctl runs the real svc-ctl command line, as a person would.
func (d *drill) svcctl(ctx context.Context, step string, args ...string) result {
	r := d.command(ctx, d.o.svcctl, args...)
	d.emit(r.marker(step))
	return r
}

func (d *drill) systemctl(ctx context.Context, step string, args ...string) {
	d.emit(d.command(ctx, "systemctl", args...).marker(step))
}

// verify polls `svc-ctl verify --json` until it passes or the deadline: the
// agent needs a cycle or two before every check has its evidence. Only the
// last attempt is printed.
func (d *drill) verify(ctx context.Context, step string) {
	deadline := time.Now().Add(d.o.verifyWait)
	for n := 1; ; n++ {
		r := d.command(ctx, d.o.svcctl, "verify", "--json", "--config", d.o.config)
		if (r.rc == 0 && r.err == nil) || !time.Now().Before(deadline) {
			m := r.marker(step)
			m.Note = strings.TrimSpace(fmt.Sprintf("attempts=%d %s", n, m.Note))
			d.emit(m)
			return
		}
		time.Sleep(time.Second)
	}
}

// units records how systemd sees the agent's unit and the timers: facts for
// the verdict, never acted on.
func (d *drill) units(ctx context.Context, step string) {
	enabled := d.command(ctx, "systemctl", "is-enabled", d.o.agentUnit)
	active := d.command(ctx, "systemctl", "is-active", d.o.agentUnit)
	// when the backstop timer last fired ("@<unix seconds>", empty if never
	// or not installed): the verdict ties a restore to it
	fired := d.command(ctx, "systemctl", "show", "--property=LastTriggerUSec", "--value", "--timestamp=unix", d.o.timer)
	timers := d.command(ctx, "systemctl", "list-timers", "--all", "--no-legend", "--no-pager")
	data, _ := json.Marshal(map[string]string{
		"unit":             d.o.agentUnit,
		"enabled":          strings.TrimSpace(string(enabled.stdout)),
		"active":           strings.TrimSpace(string(active.stdout)),
		"timer":            d.o.timer,
		"timer_last_fired": strings.TrimSpace(string(fired.stdout)),
		"timers":           strings.TrimSpace(string(timers.stdout)),
	})
	d.emit(marker.Marker{Step: step, OK: active.err == nil && enabled.err == nil, RC: -1, Data: data})
}

// markerFor is the last marker of a boot: what the guest is about to do.
func markerFor(action string) marker.Marker {
	return marker.Marker{Step: action, OK: true, RC: -1}
}
