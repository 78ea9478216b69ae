package main

import (
	"context"

	"svcctl/agent"
	"svcctl/config"
)

// detectMode, runAsService and installInfo are the seam to the OS service
// manager; the install package fills them in.
func detectMode() string { return "foreground" }

func runAsService(ctx context.Context, run func(ctx context.Context) error) error { return run(ctx) }

func installInfo(cfg *config.Config) agent.InstallInfo {
	return agent.InstallInfo{Known: false, Detail: "install support not built in"}
}
