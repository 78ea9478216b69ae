package reloadplan

import (
	"fmt"
	"os"
	"strings"

	"svcctl/config"
)

// What a reload refuses as a whole (the config in force stays): a file
// caught empty, one that moves the state dir, and one whose include lost its
// files.

// EmptyFile refuses the file of old when it is empty now while old had
// services or jobs: an editor that truncates then writes, caught in between,
// would read as every one of them removed.
func EmptyFile(old *config.Config) error {
	if fi, err := os.Stat(old.Path); err == nil && fi.Size() == 0 && (len(old.Services) > 0 || len(old.Jobs) > 0) {
		return fmt.Errorf("%s is empty (a save in progress?): a reload never reads an empty file as \"every service and job removed\"; "+
			"to remove them all, leave a comment line in the file", old.Path)
	}
	return nil
}

// SameStateDir refuses a next config that moves the state dir: an agent
// cannot move it while it runs.
func SameStateDir(old, next *config.Config) error {
	if next.Agent.StateDir != old.Agent.StateDir {
		return fmt.Errorf("%s: agent.state_dir changed from %s to %s: an agent cannot move its state dir while it runs; "+
			"put it back, or restart the agent to use the new one", old.Path, old.Agent.StateDir, next.Agent.StateDir)
	}
	return nil
}

// MissingIncludes refuses a file whose include matched files when the
// config in force was loaded and matches none now: a half-finished deploy
// (conf.d emptied before its new files arrive) must not read as every one
// of its services removed. `svc-ctl reload --allow-missing-include` takes it.
func MissingIncludes(old, next *config.Config) error {
	gone := next.MissingIncludes(old)
	if len(gone) == 0 {
		return nil
	}
	var parts []string
	for _, m := range gone {
		parts = append(parts, fmt.Sprintf("include %q matched %d file(s) when the config in force was loaded and matches none now", m.Pattern, len(m.Files)))
	}
	return fmt.Errorf("%s: %s: finish the deploy, or run `svc-ctl reload --allow-missing-include` if their services and jobs are meant to go",
		next.Path, strings.Join(parts, "; "))
}
