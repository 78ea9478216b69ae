package install

import (
	"context"
	"time"

	"svcctl/winsvc"
)

// StatusOptions says which agent service to look at.
type StatusOptions struct {
	User bool // the per-user service instead of the system one
	// DrainTimeout is the config's agent.drain_timeout: the service
	// manager's settings that depend on it are checked against it.
	DrainTimeout time.Duration
}

// Info is the agent service as the OS service manager sees it, for
// `svc-ctl status` and `svc-ctl verify`. Installed is not evidence that the
// agent started since boot (verify judges that from the agent's own start
// record); it is what the service manager says.
type Info struct {
	Installed bool   `json:"installed"`
	Running   bool   `json:"running"`
	Mode      Mode   `json:"mode"` // service | user-service: the scope looked at
	Platform  string `json:"platform"`
	Path      string `json:"path,omitempty"` // unit file, init script or plist ("" on Windows)
	// Enabled: starts at the next boot (or login). Nil where the service
	// manager cannot be asked; the generated definitions start at load there.
	Enabled *bool  `json:"enabled,omitempty"`
	Error   string `json:"error,omitempty"` // the service manager's answer when it was not a status
	// SettingsChecked: the service manager's settings beside the service
	// (Windows: recovery on non-crash failures, the preshutdown timeout) were
	// read back; SettingsError says why not where they could not be.
	// Warnings names each setting it does not hold as install sets it, with
	// what the agent lacks without it.
	SettingsChecked bool     `json:"settings_checked,omitempty"`
	SettingsError   string   `json:"settings_error,omitempty"`
	Warnings        []string `json:"warnings,omitempty"`
}

// Status asks the service manager about the agent service. It changes
// nothing and needs no privileges beyond reading the definition.
func Status(opts StatusOptions) (Info, error) {
	s, err := bareSpec(opts.User)
	if err != nil {
		return Info{}, err
	}
	t := host.target()
	info := Info{Mode: s.Mode(), Platform: t.Platform, Path: unitPath(s, t)}
	if err := scopeSupported(s, t); err != nil {
		info.Path, info.Error = "", err.Error() // nothing of this scope can be installed here
		return info, nil
	}
	m, err := newManager(Unit{Target: t, Path: info.Path}, s)
	if err != nil {
		return info, err
	}
	_, ok, err := m.installed()
	if err != nil {
		return info, err
	}
	info.Installed = ok
	if !ok {
		return info, nil
	}
	if on, known := enabled(context.Background(), t, s, osRunner); known {
		info.Enabled = &on
	}
	running, err := m.running()
	info.Running = running
	if err != nil {
		info.Error = err.Error()
	}
	checkSettings(&info, t, opts)
	return info, nil
}

// checkSettings reads back what install applies beside the service, so that
// verify judges by what the service manager holds, not by what install once
// printed.
func checkSettings(info *Info, t Target, opts StatusOptions) {
	if t.Platform != "windows-service" {
		return
	}
	warns, err := checkSCMSettings(ServiceName, winsvc.DefaultSettings(opts.DrainTimeout))
	if err != nil {
		info.SettingsError = err.Error()
		return
	}
	info.SettingsChecked = true
	for _, w := range warns {
		info.Warnings = append(info.Warnings, w.String())
	}
}
