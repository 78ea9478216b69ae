package runtrace

import (
	"testing"
	"time"
)

func TestHeartbeats(t *testing.T) {
	s := newStore(t)
	a := Heartbeat{InstanceID: "a", PID: 10, Version: "1.0", StartedAt: t0, BootTime: t0.Add(-time.Hour),
		BeatAt: t0, Mode: ModeService, Hostname: "ws1"}
	b := Heartbeat{InstanceID: "b", PID: 20, Version: "1.1", StartedAt: t0, BeatAt: t0.Add(time.Second),
		Mode: ModeForeground, Hostname: "ws1"}
	for _, h := range []Heartbeat{a, b} {
		if err := s.Beat(ctxb, h); err != nil {
			t.Fatal(err)
		}
	}
	a.BeatAt = t0.Add(time.Minute)
	a.PID = 11
	if err := s.Beat(ctxb, a); err != nil {
		t.Fatal(err)
	}
	hs, err := s.Heartbeats(ctxb)
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0] != a || hs[1] != b {
		t.Fatalf("heartbeats:\n got %+v\nwant [%+v %+v]", hs, a, b)
	}
	if err := s.DeleteHeartbeat(ctxb, "a"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteHeartbeat(ctxb, "a"); err != nil {
		t.Fatalf("deleting twice: %v", err)
	}
	if n, err := s.PruneHeartbeats(ctxb, t0.Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("PruneHeartbeats = %d, %v; want 1", n, err)
	}
	if hs, _ := s.Heartbeats(ctxb); len(hs) != 0 {
		t.Fatalf("left: %+v", hs)
	}
	if err := s.Beat(ctxb, Heartbeat{PID: 1}); err == nil {
		t.Fatal("heartbeat without instance id accepted")
	}
}

func TestRegister(t *testing.T) {
	s := newStore(t)
	if _, ok, err := s.Registered(ctxb, "job:pull"); ok || err != nil {
		t.Fatalf("Registered before Register = %v, %v", ok, err)
	}
	steps := []struct {
		spec string
		at   time.Time
		want time.Time
	}{
		{"30 9 * * * Asia/Shanghai", t0, t0},                                       // new
		{"30 9 * * * Asia/Shanghai", t0.Add(time.Hour), t0},                        // unchanged: keeps the first time
		{"30 9 * * * Europe/Berlin", t0.Add(2 * time.Hour), t0.Add(2 * time.Hour)}, // zone changed
	}
	for i, st := range steps {
		got, err := s.Register(ctxb, "job:pull", st.spec, st.at)
		if err != nil || !got.Equal(st.want) {
			t.Fatalf("step %d: Register = %v, %v; want %v", i, got, err, st.want)
		}
		reg, ok, err := s.Registered(ctxb, "job:pull")
		if err != nil || !ok || !reg.Equal(st.want) {
			t.Fatalf("step %d: Registered = %v, %v, %v", i, reg, ok, err)
		}
	}
}
