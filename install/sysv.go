package install

import (
	"fmt"
	"strings"
)

// sysvPidFile is where the SysV script keeps the agent's pid.
const sysvPidFile = "/run/" + ServiceName + ".pid"

// renderSysv is the agent's SysV init script. kardianos links it into
// /etc/rc[2-5].d (start) and /etc/rc[016].d (stop). Three things differ from
// kardianos' default script: a pid counts as running only if its executable is
// ours (pids are reused); stop waits drain_timeout plus a margin, then kills
// the agent alone (its services keep running); and the agent gets its own
// session (setsid), so closing the terminal that ran `service svc-ctl start`
// does not hang it up.
func renderSysv(s Spec) string {
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("#!/bin/sh")
	w("# svc-ctl agent: %s", header)
	w("### BEGIN INIT INFO")
	w("# Provides:          %s", ServiceName)
	w("# Required-Start:    $local_fs $remote_fs $network")
	w("# Required-Stop:     $local_fs $remote_fs")
	w("# Default-Start:     2 3 4 5")
	w("# Default-Stop:      0 1 6")
	w("# Short-Description: %s", displayName)
	w("# Description:       %s", description)
	w("### END INIT INFO")
	w("")
	w("exe=%s", shQuote(s.Exe))
	w("state_dir=%s", shQuote(s.StateDir))
	w("log_file=%s", shQuote(s.stdioLogPath("linux")))
	w("pid_file=%s", sysvPidFile)
	w("# The agent lets in-flight runs finish for drain_timeout (%s); stop waits longer.", human(s.DrainTimeout))
	w("stop_wait=%d", seconds(s.StopTimeout()))
	b.WriteString(sysvBody(s))
	return b.String()
}

func sysvBody(s Spec) string {
	args := make([]string, 0, len(s.AgentArgs()))
	for _, a := range s.AgentArgs() {
		args = append(args, shQuote(a))
	}
	return strings.ReplaceAll(sysvTemplate, "@ARGS@", strings.Join(args, " "))
}

// sysvTemplate is plain sh; @ARGS@ is the agent's quoted arguments.
const sysvTemplate = `
# is_running: the pid file names a live process running our executable.
is_running() {
    [ -f "$pid_file" ] || return 1
    pid=$(cat "$pid_file" 2>/dev/null)
    [ -n "$pid" ] || return 1
    running=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    want=$(readlink -f "$exe" 2>/dev/null || echo "$exe")
    [ "$running" = "$want" ] || [ "$running" = "$want (deleted)" ]
}

do_start() {
    if is_running; then
        echo "Already started"
        return 0
    fi
    [ -d "$state_dir" ] || mkdir -p -m 0700 "$state_dir" || return 1
    (umask 077 && : >>"$log_file") || return 1
    echo "Starting svc-ctl"
    if command -v setsid >/dev/null 2>&1; then
        setsid "$exe" @ARGS@ </dev/null >>"$log_file" 2>&1 &
    else
        "$exe" @ARGS@ </dev/null >>"$log_file" 2>&1 &
    fi
    echo $! >"$pid_file"
    sleep 1
    if ! is_running; then
        echo "svc-ctl did not start: see $log_file"
        rm -f "$pid_file"
        return 1
    fi
    echo "Started"
}

do_stop() {
    if ! is_running; then
        echo "Not running"
        rm -f "$pid_file"
        return 0
    fi
    echo "Stopping svc-ctl (its services keep running)"
    kill -TERM "$pid"
    i=0
    while is_running && [ "$i" -lt "$stop_wait" ]; do
        sleep 1
        i=$((i + 1))
    done
    if is_running; then
        echo "svc-ctl did not stop within ${stop_wait}s: killing the agent alone"
        kill -KILL "$pid"
        sleep 1
    fi
    rm -f "$pid_file"
    echo "Stopped"
}

case "$1" in
    start) do_start ;;
    stop) do_stop ;;
    restart | force-reload) do_stop && do_start ;;
    status)
        if is_running; then
            echo "Running"
            exit 0
        fi
        echo "Stopped"
        exit 3
        ;;
    *)
        echo "Usage: $0 {start|stop|restart|status}"
        exit 2
        ;;
esac
`
