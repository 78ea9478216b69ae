//go:build windows

package winsvc

import (
	"errors"
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
		return classify(s.SetRecoveryActionsOnNonCrashFailures(on))
	})
}

func (systemSCM) setPreshutdownTimeout(name string, d time.Duration) error {
	info := servicePreshutdownInfo{PreshutdownTimeout: uint32(d / time.Millisecond)}
	return withService(name, func(s *mgr.Service) error {
		return classify(windows.ChangeServiceConfig2(s.Handle, windows.SERVICE_CONFIG_PRESHUTDOWN_INFO, (*byte)(unsafe.Pointer(&info))))
	})
}

func (systemSCM) recoveryOnNonCrashFailures(name string) (bool, error) {
	var on bool
	err := withService(name, func(s *mgr.Service) error {
		var err error
		on, err = s.RecoveryActionsOnNonCrashFailures()
		return classify(err)
	})
	return on, err
}

func (systemSCM) preshutdownTimeout(name string) (time.Duration, error) {
	var info servicePreshutdownInfo
	err := withService(name, func(s *mgr.Service) error {
		var needed uint32
		return classify(windows.QueryServiceConfig2(s.Handle, windows.SERVICE_CONFIG_PRESHUTDOWN_INFO,
			(*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), &needed))
	})
	return time.Duration(info.PreshutdownTimeout) * time.Millisecond, err
}

// classify marks the SCM's "no such setting here" answers: an SCM that does
// not know an info level (Wine 8 for the failure-actions flag answers
// ERROR_INVALID_LEVEL) or a call at all.
func classify(err error) error {
	switch {
	case errors.Is(err, windows.ERROR_INVALID_LEVEL), errors.Is(err, windows.ERROR_NOT_SUPPORTED),
		errors.Is(err, windows.ERROR_CALL_NOT_IMPLEMENTED):
		return unsupported{err}
	}
	return err
}

// binaryPath asks QueryServiceConfig only: mgr.Service.Config also asks
// QueryServiceConfig2 for the description and the delayed auto-start flag,
// which an SCM may not know (Wine 8 answers ERROR_INVALID_LEVEL), and a
// setting svc-ctl does not need must not make an installed service unreadable.
func (systemSCM) binaryPath(name string) (string, error) {
	var p string
	err := withService(name, func(s *mgr.Service) error {
		n := uint32(1024)
		for {
			buf := make([]byte, n)
			c := (*windows.QUERY_SERVICE_CONFIG)(unsafe.Pointer(&buf[0]))
			err := windows.QueryServiceConfig(s.Handle, c, n, &n)
			if errors.Is(err, windows.ERROR_INSUFFICIENT_BUFFER) && n > uint32(len(buf)) {
				continue
			}
			if err != nil {
				return err
			}
			p = windows.UTF16PtrToString(c.BinaryPathName)
			return nil
		}
	})
	return p, err
}
