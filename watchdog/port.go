package watchdog

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"time"

	"svcctl/config"
	"svcctl/proc"
)

// PortHolder names the process listening on the service's health port: a
// start that finds the port taken says who holds it, and whether it is this
// service's own (previous) instance. A stranger is never signalled.
type PortHolder struct {
	Port uint32 `json:"port"`
	PID  int32  `json:"pid,omitempty"` // 0: held, but by a process svc-ctl cannot see (another user's, another namespace)
	Exe  string `json:"exe,omitempty"`
	User string `json:"user,omitempty"`
	// Ours: the holder is a process of this service's recorded instance.
	Ours bool `json:"ours"`
	// Why the holder could not be named, when PID is 0 (the system's answer).
	Why string `json:"why,omitempty"`

	id proc.Identity // the holder's identity, when it could be read
}

func (h PortHolder) String() string {
	who := "a process svc-ctl cannot see (another user's?)"
	if h.Why != "" {
		who = "a process svc-ctl cannot name (" + h.Why + ")"
	}
	if h.PID > 0 {
		who = proc.Holder{PID: h.PID, Exe: h.Exe, User: h.User}.String()
	}
	whose := "not this service's instance"
	if h.Ours {
		whose = "this service's previous instance"
	}
	return "port " + strconv.Itoa(int(h.Port)) + " is held by " + who + ", " + whose
}

// HealthPort is the local TCP port the health check talks to: the tcp
// check's, else the http check's. ok is false for an exec-only check or a
// remote host (a port on another machine is not ours to name).
func HealthPort(h config.Health) (addr string, port uint32, ok bool) { return healthPort(h) }

func healthPort(h config.Health) (addr string, port uint32, ok bool) {
	hostport := h.TCP
	if hostport == "" && h.HTTP != "" {
		u, err := url.Parse(h.HTTP)
		if err != nil {
			return "", 0, false
		}
		p := u.Port()
		if p == "" {
			p = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		hostport = net.JoinHostPort(u.Hostname(), p)
	}
	host, ps, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", 0, false
	}
	n, err := strconv.ParseUint(ps, 10, 16)
	if err != nil || n == 0 || !local(host) {
		return "", 0, false
	}
	return hostport, uint32(n), true
}

func local(host string) bool {
	if host == "localhost" || host == "" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// PortHeld reports whether something accepts connections on addr (a
// connect within half a second): the watchdog asks before a start, status
// before it names who serves a health port.
func PortHeld(ctx context.Context, addr string) bool {
	d := net.Dialer{Timeout: 500 * time.Millisecond}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// holderOf names who holds port. tree, when known, is the recorded
// instance's facts: a member listening there is ours without the
// host-wide socket scan PortHolder needs.
// The OS seam of who holds a port: a member's own sockets (Linux), and
// every process's socket table; tests replace them with a system that
// cannot name the holder (Wine's GetExtendedTcpTable, another user's
// process).
var (
	memberListens = proc.Listens
	portHolder    = proc.PortHolder
)

func holderOf(ctx context.Context, port uint32, tree *proc.TreeFacts) *PortHolder {
	if tree != nil {
		for _, m := range tree.Members {
			for _, p := range m.ListenPorts {
				if p == port {
					return &PortHolder{Port: port, PID: m.PID, Exe: m.Exe, Ours: true}
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	h, err := portHolder(ctx, port)
	if err != nil {
		return &PortHolder{Port: port, Why: err.Error()}
	}
	if h == nil {
		return &PortHolder{Port: port}
	}
	return &PortHolder{Port: port, PID: h.PID, Exe: h.Exe, User: h.User, id: h.Identity}
}
