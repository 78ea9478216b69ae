package install

import (
	"context"
	"errors"
	"testing"
)

func TestDecideMode(t *testing.T) {
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	cases := []struct {
		name string
		f    facts
		want Mode
	}{
		{"windows scm", facts{getenv: env(), winService: true}, ModeService},
		{"--managed, system", facts{getenv: env(), managed: true}, ModeService},
		{"--managed, per user", facts{getenv: env(), managed: true, user: true}, ModeUserService},
		{"env says user-service", facts{getenv: env(ModeEnv, "user-service")}, ModeUserService},
		{"env nonsense is ignored", facts{getenv: env(ModeEnv, "daemon")}, ModeForeground},
		// Whatever started it, an agent without --managed is a person's:
		// a systemd unit or launchd job written by hand, setsid, nohup
		// (before: setsid from a shell that exited read as an init service).
		{"systemd unit without --managed", facts{getenv: env("INVOCATION_ID", "a1b2")}, ModeForeground},
		{"launchd job without --managed", facts{getenv: env("XPC_SERVICE_NAME", "svc-ctl")}, ModeForeground},
		{"setsid or nohup", facts{getenv: env()}, ModeForeground},
	}
	for _, c := range cases {
		if got := decideMode(c.f); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestDetectInATestIsNotWindowsService(t *testing.T) {
	t.Setenv(ModeEnv, "foreground")
	if got := Detect(false); got != ModeForeground {
		t.Errorf("Detect with %s=foreground: %s", ModeEnv, got)
	}
}

// Not started by a service manager, run runs directly, once, also when the
// command line claims a service (--mode service typed by a person): the
// dispatcher cannot connect and says so without calling run.
func TestRunServiceContextRunsDirectly(t *testing.T) {
	for _, asService := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		boom := errors.New("agent failed")
		calls := 0
		err := RunServiceContext(ctx, ServiceName, asService, func(ctx context.Context) error {
			calls++
			cancel()
			<-ctx.Done() // the caller's cancellation reaches run
			return boom
		})
		if !errors.Is(err, boom) || calls != 1 {
			t.Errorf("asService %v: RunServiceContext = %v after %d calls of run, want run's error after one call", asService, err, calls)
		}
	}
}
