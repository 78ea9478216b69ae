package config

import (
	"os"
	"path/filepath"

	toml "github.com/pelletier/go-toml/v2"
)

// PeekStateDir is the state dir the config file at path names, read as
// leniently as a file can be read: for when the file does not load. A
// reader (status, runs, why, logs...) then answers from the state dir alone,
// and `svc-ctl reload` still finds the agent that will refuse the file.
// Only [agent] state_dir is read, nothing is validated; a file that is not
// even TOML, or names no state dir, gives the default for this mode.
// fromFile says which.
func PeekStateDir(path string) (dir string, fromFile bool) {
	data, err := os.ReadFile(path)
	if err == nil {
		var raw struct {
			Agent struct {
				StateDir string `toml:"state_dir"`
			} `toml:"agent"`
		}
		if toml.Unmarshal(data, &raw) == nil && raw.Agent.StateDir != "" {
			dir = raw.Agent.StateDir
			if !filepath.IsAbs(dir) {
				if abs, err := filepath.Abs(path); err == nil {
					dir = filepath.Join(filepath.Dir(abs), dir)
				}
			}
			return filepath.Clean(dir), true
		}
	}
	return DefaultStateDir(UserMode()), false
}
