package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"svcctl/config"
)

// Request is what `svc-ctl install` was asked for.
type Request struct {
	ConfigFlag string // --config as given; "" = $SVC_CTL_CONFIG, else the platform default
	User       bool   // --user: a per-user service started at login
	Exe        string // the binary the service runs; "" = this one
	// StartWait bounds how long Install waits for the started agent to be
	// seen running; 0 = 15s.
	StartWait time.Duration
}

// Plan is a checked request: the config loaded and validated, the unit
// rendered. Making one touches nothing.
type Plan struct {
	Spec         Spec
	Unit         Unit
	Config       *config.Config
	ConfigSource string // which of --config, $SVC_CTL_CONFIG, default gave the path
	StartWait    time.Duration
}

// ConfigError says the config could not be resolved, loaded or trusted.
// Nothing was installed or changed.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// UsageError says the request cannot be done as asked (scope, platform).
// Nothing was installed or changed.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// NewPlan checks req: scope, config (resolved, loaded, validated, and, for a
// system service, not writable by others), binary; and renders the unit.
func NewPlan(req Request) (*Plan, error) {
	if err := checkScope(req.User); err != nil {
		return nil, err
	}
	cfg, source, err := loadConfig(req.ConfigFlag, req.User)
	if err != nil {
		return nil, err
	}
	spec, err := newSpec(cfg, req.User, req.Exe)
	if err != nil {
		return nil, err
	}
	unit, err := RenderUnit(spec, host.target())
	if err != nil {
		return nil, &UsageError{err}
	}
	wait := req.StartWait
	if wait <= 0 {
		wait = 15 * time.Second
	}
	return &Plan{Spec: spec, Unit: unit, Config: cfg, ConfigSource: source, StartWait: wait}, nil
}

// checkScope: a system service needs root (Administrator); a per-user one
// must be installed by that user.
func checkScope(user bool) error {
	switch um := host.userMode(); {
	case !user && um:
		return &UsageError{errors.New("installing the system service needs root (an elevated prompt on Windows): run it with sudo, or pass --user for a per-user service started at login")}
	case user && !um:
		return &UsageError{errors.New("--user installs a service for the user who runs the command: run it as that user, without sudo")}
	}
	return nil
}

func loadConfig(flag string, user bool) (*config.Config, string, error) {
	path, source, err := config.Resolve(flag)
	if err != nil {
		return nil, "", &ConfigError{err}
	}
	cfg, err := config.Load(path)
	if err != nil {
		return nil, "", &ConfigError{err} // config's errors name the file and say what to do
	}
	if !user {
		// The service runs as root: whoever can write the config runs commands as root.
		if err := config.CheckPermissions(cfg.Path); err != nil {
			return nil, "", &ConfigError{err}
		}
	}
	return cfg, source, nil
}

func newSpec(cfg *config.Config, user bool, exe string) (Spec, error) {
	if exe == "" {
		var err error
		if exe, err = host.executable(); err != nil {
			return Spec{}, err
		}
	}
	if !filepath.IsAbs(exe) {
		return Spec{}, &UsageError{fmt.Errorf("the svc-ctl binary path %q is not absolute", exe)}
	}
	if strings.Contains(filepath.ToSlash(exe), "/go-build") {
		return Spec{}, &UsageError{fmt.Errorf("%s is a temporary `go run` binary: build svc-ctl, put it where it will stay (e.g. /usr/local/bin), and install from there", exe)}
	}
	acct, err := host.account()
	if err != nil {
		return Spec{}, err
	}
	return Spec{
		Exe:          exe,
		ConfigPath:   cfg.Path,
		StateDir:     cfg.Agent.StateDir,
		DrainTimeout: cfg.Agent.DrainTimeout,
		User:         user,
		Home:         acct.home,
		UID:          acct.uid,
		UserID:       acct.userID,
	}, nil
}
