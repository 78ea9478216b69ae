package install

import (
	"fmt"
	"strings"
)

// renderOpenRC is the agent's OpenRC script, supervised by supervise-daemon:
// respawned after 5 s without limit, stopped with TERM and given
// drain_timeout plus a margin before KILL. OpenRC leaves the service's other
// processes alone on stop unless rc_cgroup_cleanup is set in /etc/rc.conf
// (it is off by default); leave it off, or the supervised services die too.
func renderOpenRC(s Spec) (string, error) {
	for _, f := range []struct{ key, val string }{{"the svc-ctl binary path", s.Exe}, {"the config path", s.ConfigPath}, {"agent.state_dir", s.StateDir}} {
		if err := openrcSafe(f.key, f.val); err != nil {
			return "", err
		}
	}
	args := make([]string, 0, len(s.AgentArgs()))
	for _, a := range s.AgentArgs() {
		args = append(args, "'"+a+"'")
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w("#!/sbin/openrc-run")
	w("# svc-ctl agent: %s", header)
	w("name=%q", ServiceName)
	w("description=%q", description)
	w("supervisor=supervise-daemon")
	w("command='%s'", s.Exe)
	w("command_args=\"%s\"", strings.Join(args, " "))
	w("output_log='%s'", s.stdioLogPath("linux"))
	w("error_log='%s'", s.stdioLogPath("linux"))
	w("respawn_delay=5")
	w("respawn_max=0")
	w("# The agent lets in-flight runs finish for drain_timeout (%s); stop waits longer.", human(s.DrainTimeout))
	w("retry=\"TERM/%d/KILL/5\"", seconds(s.StopTimeout()))
	w("")
	w("depend() {")
	w("\tneed localmount")
	w("\tafter net")
	w("}")
	w("")
	w("start_pre() {")
	w("\tcheckpath --directory --mode 0700 '%s'", s.StateDir)
	w("}")
	return b.String(), nil
}
