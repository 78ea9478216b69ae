package notify

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"svcctl/config"
	"svcctl/internal/testkit"
)

// notificationServer is a test org.freedesktop.Notifications on a private
// session bus: it records what it was asked to show.
type notificationServer struct {
	mu    sync.Mutex
	shown []shown
}

type shown struct {
	App, Summary, Body string
	Urgency            byte
}

func (s *notificationServer) Notify(app string, replaces uint32, icon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var urgency byte
	if v, ok := hints["urgency"]; ok {
		urgency, _ = v.Value().(byte)
	}
	s.shown = append(s.shown, shown{app, summary, body, urgency})
	return uint32(len(s.shown)), nil
}

func (s *notificationServer) got() []shown {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]shown(nil), s.shown...)
}

// TestDesktopOverDBus: the desktop channel calls Notify on the session bus,
// critical urgency for a given-up service, normal for a recovery.
func TestDesktopOverDBus(t *testing.T) {
	addr := testkit.DBus(t)
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	srv := &notificationServer{}
	if err := conn.Export(srv, fdoPath, fdoName); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName(fdoName, dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName = %v, %v", reply, err)
	}
	old := sessionBus
	sessionBus = func() string { return addr }
	defer func() { sessionBus = old }()

	ch, err := Open(&config.Notify{Name: "screen", Kind: config.NotifyDesktop, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{KindServiceGivenUp, KindServiceRecovered} {
		if err := ch.Send(ctxb, sample(kind)); err != nil {
			t.Fatalf("Send(%s): %v", kind, err)
		}
	}
	got := srv.got()
	if len(got) != 2 {
		t.Fatalf("shown %d, want 2", len(got))
	}
	if got[0].App != "svc-ctl" || got[0].Summary != "proxy given up on ws-07" || got[0].Urgency != 2 ||
		!strings.HasPrefix(got[0].Body, sample(KindServiceGivenUp).Message+"\nexit code 1") {
		t.Errorf("given-up: %+v", got[0])
	}
	if got[1].Summary != "proxy recovered on ws-07" || got[1].Urgency != 1 {
		t.Errorf("recovered: %+v", got[1])
	}
}

// TestDesktopWithoutSessionBus says what to do instead of failing vaguely.
func TestDesktopWithoutSessionBus(t *testing.T) {
	old := sessionBus
	sessionBus = func() string { return "" }
	defer func() { sessionBus = old }()
	ch, _ := Open(&config.Notify{Name: "screen", Kind: config.NotifyDesktop, Timeout: time.Second})
	err := ch.Send(ctxb, sample(KindServiceDown))
	if err == nil || !strings.Contains(err.Error(), "svc-ctl install --user") {
		t.Errorf("Send without a bus = %v", err)
	}
}
