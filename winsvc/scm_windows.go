//go:build windows

package winsvc

import (
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc/mgr"
)

// systemSCM talks to the real service control manager.
type systemSCM struct{}

// servicePreshutdownInfo is SERVICE_PRESHUTDOWN_INFO, which x/sys does not
// define: the timeout in milliseconds.
type servicePreshutdownInfo struct {
	PreshutdownTimeout uint32
}

func withService(name string, f func(s *mgr.Service) error) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to the service control manager (run from an elevated prompt): %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		return fmt.Errorf("open service: %w", err)
	}
	defer s.Close()
	return f(s)
}

func (systemSCM) setRecoveryActions(name string, delays []time.Duration, reset time.Duration) error {
	actions := make([]mgr.RecoveryAction, len(delays))
	for i, d := range delays {
		actions[i] = mgr.RecoveryAction{Type: mgr.ServiceRestart, Delay: d}
	}
	return withService(name, func(s *mgr.Service) error {
		return s.SetRecoveryActions(actions, uint32(reset/time.Second))
	})
}

func (systemSCM) setRecoveryOnNonCrashFailures(name string, on bool) error {
	return withService(name, func(s *mgr.Service) error {
		return s.SetRecoveryActionsOnNonCrashFailures(on)
	})
}

func (systemSCM) setPreshutdownTimeout(name string, d time.Duration) error {
	info := servicePreshutdownInfo{PreshutdownTimeout: uint32(d / time.Millisecond)}
	return withService(name, func(s *mgr.Service) error {
		return windows.ChangeServiceConfig2(s.Handle, windows.SERVICE_CONFIG_PRESHUTDOWN_INFO, (*byte)(unsafe.Pointer(&info)))
	})
}

func (systemSCM) binaryPath(name string) (string, error) {
	var p string
	err := withService(name, func(s *mgr.Service) error {
		c, err := s.Config()
		if err != nil {
			return err
		}
		p = c.BinaryPathName
		return nil
	})
	return p, err
}
