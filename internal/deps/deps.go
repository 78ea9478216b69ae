//go:build tools

package deps

import (
	_ "github.com/gofrs/flock"
	_ "github.com/kardianos/service"
	_ "github.com/pelletier/go-toml/v2"
	_ "github.com/robfig/cron/v3"
	_ "github.com/shirou/gopsutil/v4/process"
	_ "github.com/spf13/cobra"
	_ "golang.org/x/sys/unix"
	_ "golang.org/x/term"
	_ "gopkg.in/natefinch/lumberjack.v2"
	_ "modernc.org/sqlite"
)
