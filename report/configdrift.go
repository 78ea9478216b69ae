package report

import (
	"fmt"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/state"
)

// ConfigDrift says how the config the running agent runs differs from the
// file on disk: the file changed since the agent loaded it (a reload would
// apply it, or refuse it), or the last reload read something it can apply
// only at an agent restart.
type ConfigDrift struct {
	Path         string    `json:"path"`
	LoadedAt     time.Time `json:"loaded_at"`
	FileChanged  bool      `json:"file_changed"`
	FileModTime  time.Time `json:"file_mtime,omitzero"`
	NeedsRestart []string  `json:"needs_restart,omitempty"`
	Words        string    `json:"words"`
}

// configDrift compares what the live agent loaded (agent.status) with cfg,
// the file as it is now; nil when they agree, or there is no live agent to
// ask, or the agent runs another file.
func configDrift(cfg *config.Config, live *state.AgentReport) *ConfigDrift {
	if live == nil || live.Config == nil || live.Config.Path != cfg.Path {
		return nil
	}
	c := live.Config
	d := &ConfigDrift{Path: c.Path, LoadedAt: c.LoadedAt, NeedsRestart: c.NeedsRestart}
	if cfg.Digest != "" && c.Digest != "" && cfg.Digest != c.Digest {
		d.FileChanged, d.FileModTime = true, cfg.ModTime
	}
	var words []string
	if d.FileChanged {
		words = append(words, fmt.Sprintf("%s changed (at %s) since the agent loaded it (at %s): 'svc-ctl reload' applies it",
			c.Path, d.FileModTime.Format(time.RFC3339), c.LoadedAt.Format(time.RFC3339)))
	}
	if len(d.NeedsRestart) > 0 {
		words = append(words, "the last reload could not apply "+strings.Join(d.NeedsRestart, ", ")+": restart the agent for them")
	}
	if len(words) == 0 {
		return nil
	}
	d.Words = strings.Join(words, "; ")
	return d
}
