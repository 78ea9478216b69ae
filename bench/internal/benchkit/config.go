package benchkit

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
)

// Service is one [[service]] running testsvc on Addr (127.0.0.1:port).
type Service struct {
	Name     string
	Addr     string
	Interval string // e.g. "10s"
	Timeout  string // health timeout; "" = "2s"
	Confirm  string // "" = "0s"
	Extra    []string
	// Launcher goes in front of testsvc in the command: a shim or wrapper
	// script (argv), so the service has the shape real ones have.
	Launcher []string
}

// Job is one [[job]].
type Job struct {
	Name     string
	Schedule string
	Timezone string
	Command  []string // nil with External
	External bool
}

// Setup is a config file and its state dir.
type Setup struct {
	Dir, Config, State string
}

// WriteConfig writes svc-ctl.toml (0600) with its state dir under a fresh
// directory. agentExtra lines go into [agent] as written.
func (k *Kit) WriteConfig(name, testsvc string, agentExtra []string, svcs []Service, jobs []Job) (Setup, error) {
	dir, err := k.SubDir(name)
	if err != nil {
		return Setup{}, err
	}
	s := Setup{Dir: dir, Config: filepath.Join(dir, "svc-ctl.toml"), State: filepath.Join(dir, "state")}
	var b strings.Builder
	fmt.Fprintf(&b, "[agent]\nstate_dir = %q\n", s.State)
	for _, l := range agentExtra {
		b.WriteString(l + "\n")
	}
	for _, sv := range svcs {
		writeService(&b, testsvc, sv)
	}
	for _, j := range jobs {
		writeJob(&b, j)
	}
	if err := os.WriteFile(s.Config, []byte(b.String()), 0o600); err != nil {
		return Setup{}, fmt.Errorf("write config: %w", err)
	}
	k.Defer(func() { KillRecorded(s.State) })
	return s, nil
}

func writeService(b *strings.Builder, testsvc string, s Service) {
	argv := append(append(append([]string{}, s.Launcher...), testsvc, "--addr", s.Addr), s.Extra...)
	fmt.Fprintf(b, "\n[[service]]\nname = %q\ncommand = %s\ninterval = %q\nstart_timeout = \"5s\"\nstop_timeout = \"2s\"\n",
		s.Name, tomlList(argv), s.Interval)
	fmt.Fprintf(b, "  [service.health]\n  http = \"http://%s/health\"\n  timeout = %q\n  confirm = %q\n",
		s.Addr, or(s.Timeout, "2s"), or(s.Confirm, "0s"))
	// The benches kill services again and again to time each restore: that
	// is measurement, not a crash loop (loop_restarts would back off).
	b.WriteString("  [service.restart]\n  loop_restarts = 0\n")
}

func writeJob(b *strings.Builder, j Job) {
	fmt.Fprintf(b, "\n[[job]]\nname = %q\nschedule = %q\ntimezone = %q\n", j.Name, j.Schedule, j.Timezone)
	if j.External {
		b.WriteString("external = true\n")
	} else {
		fmt.Fprintf(b, "command = %s\n", tomlList(j.Command))
	}
}

func tomlList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// FreeAddrs returns n distinct free loopback addresses. The listeners are
// closed before returning, so another program could take a port in between;
// on a benchmark host that is rare and shows up as a failed start.
func FreeAddrs(n int) ([]string, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	out := make([]string, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
		}
		lns = append(lns, l)
		out = append(out, l.Addr().String())
	}
	return out, nil
}
