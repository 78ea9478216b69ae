package config

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

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
		if toml.Unmarshal(data, &raw) != nil {
			// Not TOML as a whole (the break may be anywhere): the line
			// that sets it, in the [agent] table.
			raw.Agent.StateDir = scanStateDir(data)
		}
		if raw.Agent.StateDir != "" {
			dir = raw.Agent.StateDir
			if !filepath.IsAbs(dir) {
				if abs, err := filepath.Abs(path); err == nil {
					dir = filepath.Join(filepath.Dir(abs), dir)
				}
			}
			return Canonical(dir), true
		}
	}
	return Canonical(DefaultStateDir(UserMode())), false
}

var (
	tableLine    = regexp.MustCompile(`^\s*\[\s*([A-Za-z0-9_.\- ]+?)\s*\]\s*(#.*)?$`)
	stateDirLine = regexp.MustCompile(`^\s*state_dir\s*=\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)')\s*(#.*)?$`)
)

// scanStateDir finds `state_dir = "..."` in the [agent] table line by line,
// for a file the TOML parser refuses somewhere else.
func scanStateDir(data []byte) string {
	table := ""
	for _, line := range strings.Split(string(data), "\n") {
		if m := tableLine.FindStringSubmatch(line); m != nil && !strings.HasPrefix(strings.TrimSpace(line), "[[") {
			table = m[1]
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "[[") {
			table = "[[" // an array table: not [agent]
			continue
		}
		if table != "agent" {
			continue
		}
		if m := stateDirLine.FindStringSubmatch(line); m != nil {
			if m[2] != "" {
				return m[2]
			}
			if s, err := strconv.Unquote(`"` + m[1] + `"`); err == nil {
				return s
			}
		}
	}
	return ""
}
