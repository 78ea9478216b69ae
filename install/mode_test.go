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
		{"windows scm", facts{getenv: env(), euid: -1, ppid: 600, winService: true}, ModeService},
		{"env says user-service", facts{getenv: env(ModeEnv, "user-service"), euid: 0, ppid: 1}, ModeUserService},
		{"env nonsense is ignored", facts{getenv: env(ModeEnv, "daemon"), euid: 1000, ppid: 4000, stdinTTY: true}, ModeForeground},
		{"systemd system unit", facts{getenv: env("INVOCATION_ID", "a1b2"), euid: 0, ppid: 1}, ModeService},
		{"systemd user unit", facts{getenv: env("INVOCATION_ID", "a1b2"), euid: 1000, ppid: 900}, ModeUserService},
		{"launchd daemon", facts{getenv: env("XPC_SERVICE_NAME", "svc-ctl"), euid: 0, ppid: 1}, ModeService},
		{"launchd agent", facts{getenv: env("XPC_SERVICE_NAME", "svc-ctl"), euid: 501, ppid: 1}, ModeUserService},
		{"macOS Terminal", facts{getenv: env("XPC_SERVICE_NAME", "0"), euid: 501, ppid: 700, stdinTTY: true}, ModeForeground},
		{"iTerm", facts{getenv: env("XPC_SERVICE_NAME", "application.com.googlecode.iterm2.1"), euid: 501, ppid: 700, stdinTTY: true}, ModeForeground},
		{"sysv init", facts{getenv: env(), euid: 0, ppid: 1, sessionLeader: true}, ModeService},
		// `svc-ctl agent &` whose shell has exited: reparented to init, no
		// terminal, but still in the person's session (review1, F13).
		{"backgrounded by hand", facts{getenv: env(), euid: 0, ppid: 1}, ModeForeground},
		{"nohup from a shell that exited", facts{getenv: env(), euid: 1000, ppid: 1, stdinTTY: true}, ModeForeground},
		{"terminal as root", facts{getenv: env(), euid: 0, ppid: 4000, stdinTTY: true}, ModeForeground},
	}
	for _, c := range cases {
		if got := decideMode(c.f); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

func TestDetectInATestIsNotWindowsService(t *testing.T) {
	t.Setenv(ModeEnv, "foreground")
	if got := Detect(); got != ModeForeground {
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
