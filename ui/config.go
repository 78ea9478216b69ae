package ui

import (
	"context"
	"os"
	"time"

	"svcctl/config"
)

// What the page shows, as /api/state's config_shown says it.
const (
	// ShownFile: the services and jobs of the config file as it loads now.
	ShownFile = "file"
	// ShownStateDir: the file does not load; services and jobs as svc-ctl
	// recorded them in the state dir (report.StateOnlyConfig).
	ShownStateDir = "state_dir"
	// ShownPrevious: the file as it is now cannot be used at all (gone,
	// unreadable, refused): the page keeps the config it showed before.
	ShownPrevious = "previous"
)

// configView is the config the page answers from, and why the file does
// not load (nil: it does).
type configView struct {
	cfg    *config.Config
	broken error
	shown  string
	// secrets are the values the detail's log tails hide: the config's, or
	// when the file broke, those of the last config that loaded (the state
	// dir's stand-in knows no env values).
	secrets []string
	stamp   fileStamp
	known   bool // stamp is the file's as this view was loaded
}

// fileStamp is what one stat says of the config file: a change of any
// means it was written, or its mode changed (a chmod decides whether a
// privileged page may act on it, so mtime and size alone are not enough).
type fileStamp struct {
	mod  time.Time
	size int64
	mode os.FileMode
	ok   bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{mod: fi.ModTime(), size: fi.Size(), mode: fi.Mode(), ok: true}
}

func (a fileStamp) same(b fileStamp) bool {
	return a.ok == b.ok && a.size == b.size && a.mod.Equal(b.mod) && a.mode == b.mode
}

// Config is the config the page answers from now.
func (s *Server) Config() *config.Config { return s.view.Load().cfg }

// current is the view to answer from, after one stat of the config file:
// when its modification time or size changed since the view was loaded,
// the file is read again (Options.Reload) and the new view swapped in, so
// services and jobs added to the file appear and a file that broke shows
// as broken. Concurrent callers wait for one reload.
func (s *Server) current(ctx context.Context) *configView {
	v := s.view.Load()
	if s.opts.Reload == nil || v.cfg.Path == "" {
		return v
	}
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	v = s.view.Load()
	stamp := stampOf(v.cfg.Path)
	if v.known && stamp.same(v.stamp) {
		return v
	}
	cfg, broken := s.opts.Reload(context.WithoutCancel(ctx))
	nv := &configView{cfg: cfg, broken: broken, shown: ShownFile, stamp: stamp, known: true}
	switch {
	case cfg == nil:
		nv.cfg, nv.shown = v.cfg, ShownPrevious
	case broken != nil:
		nv.shown = ShownStateDir
	}
	nv.secrets = v.secrets
	if nv.shown == ShownFile {
		nv.secrets = nv.cfg.SecretValues()
	}
	s.view.Store(nv)
	if nv.cfg != v.cfg {
		// What was computed from the old config names its services and
		// jobs: the timeline and verify start again from the new one.
		s.timeline.Clear()
		s.verify.reset()
	}
	switch {
	case broken != nil && (v.broken == nil || v.broken.Error() != broken.Error()):
		s.opts.Log.Warn("ui.config_broken", "path", v.cfg.Path, "shown", nv.shown, "err", broken)
	case broken == nil && v.known:
		s.opts.Log.Info("ui.config_reloaded", "path", v.cfg.Path, "services", len(cfg.Services), "jobs", len(cfg.Jobs))
	}
	return nv
}

// configErrors lists the problems of the config file's contents inside err
// (syntax or schema errors, each naming file, line and key); none when err
// is something else (a file that cannot be read, a permission check that
// refused it).
func configErrors(err error) []string {
	var out []string
	for _, e := range config.Errors(err) {
		out = append(out, e.Error())
	}
	return out
}
