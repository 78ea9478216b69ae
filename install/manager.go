package install

import (
	"errors"
	"fmt"
	"os"

	"github.com/kardianos/service"

	"svcctl/winsvc"
)

// manager is the OS service manager as Install and Uninstall use it. The real
// one is kardianos/service plus the few things it does not do; tests put an
// in-memory fake in newManager.
type manager interface {
	// installed returns the installed definition (file content, or on Windows
	// the SCM's command line) and whether the service is installed at all.
	installed() (definition string, ok bool, err error)
	install() error
	uninstall() error
	start() error
	stop() error
	restart() error
	running() (bool, error)
}

var newManager = func(u Unit, s Spec) (manager, error) {
	svc, err := service.New(program{}, kardianosConfig(u, s))
	if err != nil {
		return nil, fmt.Errorf("service manager %s: %w", u.Target.Platform, err)
	}
	return &kardianosManager{svc: svc, unit: u, spec: s}, nil
}

// applySCMSettings applies the Windows recovery settings and checkSCMSettings
// reads them back; variables so that the Windows install flow is tested on
// any OS.
var (
	applySCMSettings = winsvc.Apply
	checkSCMSettings = winsvc.Check
	scmBinaryPath    = winsvc.BinaryPath
)

// program satisfies kardianos' Interface; this package never calls Run
// through kardianos (RunServiceContext does the running).
type program struct{}

func (program) Start(service.Service) error { return nil }
func (program) Stop(service.Service) error  { return nil }

// kardianosConfig is the kardianos configuration for u: the rendered
// definition goes in as the platform's custom template. It holds no template
// actions (RenderUnit refuses paths with braces), so kardianos writes it
// byte for byte.
func kardianosConfig(u Unit, s Spec) *service.Config {
	opt := service.KeyValue{
		"UserService": s.User,
		"RunAtLoad":   true,
		"KeepAlive":   true,
		"StartType":   "automatic",
	}
	if u.Option != "" {
		opt[u.Option] = u.Content
	}
	return &service.Config{
		Name:        ServiceName,
		DisplayName: displayName,
		Description: description,
		Executable:  s.Exe,
		Arguments:   s.AgentArgs(),
		Option:      opt,
	}
}

type kardianosManager struct {
	svc  service.Service
	unit Unit
	spec Spec
}

func (m *kardianosManager) installed() (string, bool, error) {
	if m.unit.Target.GOOS == "windows" {
		if _, err := m.svc.Status(); errors.Is(err, service.ErrNotInstalled) {
			return "", false, nil
		}
		cmd, err := scmBinaryPath(ServiceName)
		return cmd, err == nil, err
	}
	b, err := os.ReadFile(m.unit.Path)
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read the installed definition: %w", err)
	}
	return string(b), true, nil
}

func (m *kardianosManager) install() error {
	if err := m.svc.Install(); err != nil {
		return fmt.Errorf("install %s into %s: %w", ServiceName, m.unit.Target.Platform, err)
	}
	return nil
}

func (m *kardianosManager) uninstall() error {
	if err := m.svc.Uninstall(); err != nil {
		return fmt.Errorf("remove %s from %s: %w", ServiceName, m.unit.Target.Platform, err)
	}
	if isInitScript(m.unit.Target.Platform) {
		// kardianos removes the script but not its rc links; the pid file is ours.
		return removeInitLeftovers("/")
	}
	return nil
}

func (m *kardianosManager) start() error   { return wrapOp("start", m.svc.Start()) }
func (m *kardianosManager) stop() error    { return wrapOp("stop", m.svc.Stop()) }
func (m *kardianosManager) restart() error { return wrapOp("restart", m.svc.Restart()) }

func (m *kardianosManager) running() (bool, error) {
	st, err := m.svc.Status()
	if err != nil && isInitScript(m.unit.Target.Platform) {
		// kardianos reads a non-zero `service svc-ctl status` (3: stopped,
		// as LSB says) as an error.
		return false, nil
	}
	return st == service.StatusRunning, err
}

func wrapOp(op string, err error) error {
	if err != nil {
		return fmt.Errorf("%s %s: %w", op, ServiceName, err)
	}
	return nil
}
