package main

import (
	"context"

	"svcctl/config"
	"svcctl/install"
	"svcctl/report"
)

// detectMode, runAsService and installInfo are the seam to the OS service
// manager (install).
func detectMode(managed bool) string { return string(install.Detect(managed)) }

// runAsService runs the agent under the Windows SCM when it started it (so a
// service stop is a drain), and directly everywhere else. mode is the
// agent's --mode (or the detected one): "service" is what install registers.
func runAsService(ctx context.Context, mode string, run func(ctx context.Context) error) error {
	return install.RunServiceContext(ctx, install.ServiceName, mode == string(install.ModeService), run)
}

// installInfo asks the service manager what `verify` needs: is the agent
// installed, in which mode, and is a backstop registered.
func installInfo(cfg *config.Config) report.InstallInfo {
	u := config.UserMode()
	i, err := install.Status(install.StatusOptions{User: u, DrainTimeout: cfg.Agent.DrainTimeout})
	if err != nil {
		return report.InstallInfo{Detail: err.Error()}
	}
	b, berr := install.BackstopStatus(context.Background(), install.BackstopOptions{User: u, StateDir: cfg.Agent.StateDir})
	return report.InstallInfo{Known: true, Installed: i.Installed, Mode: string(i.Mode), Platform: i.Platform,
		Running: i.Running, Enabled: i.Enabled, Detail: i.Path,
		SettingsChecked: i.SettingsChecked, SettingsError: i.SettingsError, SettingWarnings: i.Warnings, BackstopKnown: berr == nil, BackstopInstalled: b.Registered,
		BackstopEvery: b.Every, BackstopDetail: b.Where}
}
