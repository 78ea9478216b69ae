package ui

import (
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// DefaultListen is where the page listens unless told: loopback, a port the
// OS picks.
const DefaultListen = "127.0.0.1:0"

// CheckListen validates a --listen address. An address that is not loopback
// is refused unless public is set: the page shows process trees and log
// tails, and its actions start and stop services. It reports whether the
// address reaches beyond this host, for the caller to warn.
func CheckListen(addr string, public bool) (reachable bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("--listen %q: want HOST:PORT, like 127.0.0.1:0 or 127.0.0.1:8790: %w", addr, err)
	}
	if port == "" {
		return false, fmt.Errorf("--listen %q: no port: add :0 for a free one", addr)
	}
	if loopback(host) {
		return false, nil
	}
	if !public {
		return true, fmt.Errorf("--listen %q is not a loopback address: the page shows process trees and logs and can start and stop services; "+
			"add --listen-public to serve it there anyway, or use 127.0.0.1:PORT", addr)
	}
	return true, nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// allowedHosts are the Host header values a loopback listener answers:
// its own address, and localhost with its port. A request naming any other
// host came through a name that resolves here by surprise (DNS rebinding)
// and is refused. For a public listener it returns nil: any Host.
func allowedHosts(ln net.Addr) map[string]bool {
	ap, err := netip.ParseAddrPort(ln.String())
	if err != nil || !ap.Addr().IsLoopback() {
		return nil
	}
	port := fmt.Sprint(ap.Port())
	return map[string]bool{
		ap.String():                   true,
		"localhost:" + port:           true,
		"127.0.0.1:" + port:           true,
		net.JoinHostPort("::1", port): true,
	}
}

// pageURL is the address to print and open: the listener's, with the
// unspecified address (0.0.0.0, ::) replaced by loopback, and the token in
// the fragment, which a browser never sends to a server: the page moves it
// into sessionStorage and sends it as a header.
func pageURL(ln net.Addr, token string) string {
	ap, err := netip.ParseAddrPort(ln.String())
	host := ln.String()
	if err == nil {
		a := ap.Addr()
		if a.IsUnspecified() {
			a = netip.MustParseAddr("127.0.0.1")
		}
		host = netip.AddrPortFrom(a, ap.Port()).String()
	}
	return "http://" + host + "/#token=" + token
}
