package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"svcctl/config"
	"svcctl/report"
)

// loadConfigOrState is the load of the read-only verbs that need only the
// state dir (status, runs, why, missing, logs, snapshot). When the file
// exists but does not load, they say what is broken, on stderr, and then
// answer from the state dir alone (report.StateOnlyConfig): a person
// looking for why things broke must not be locked out by the file that
// broke them. A missing file, or one this user may not read, is still an
// error: there is no state dir to trust then. Verbs that act never come
// here (trust.go).
func loadConfigOrState(ctx context.Context, g *globals) (*config.Config, error) {
	cfg, err := loadConfig(g)
	var ce configError
	if err == nil || !errors.As(err, &ce) {
		return cfg, err
	}
	path, _, rerr := config.Resolve(g.configPath)
	if rerr != nil {
		return nil, err
	}
	if _, serr := os.Stat(path); serr != nil {
		return nil, err // no file at all: no state dir it names
	}
	scfg, where, serr := stateOnly(ctx, path, err)
	if serr != nil {
		return nil, serr
	}
	warnStateOnly(g, scfg, where, err)
	g.cfg, g.broken = scfg, err
	return scfg, nil
}

// stateOnly is what the state dir the broken file at path names says
// alone (report.StateOnlyConfig), and where that state dir came from; an
// error (keeping broken) when the state dir cannot answer either.
func stateOnly(ctx context.Context, path string, broken error) (*config.Config, string, error) {
	dir, fromFile := config.PeekStateDir(path)
	scfg, serr := report.StateOnlyConfig(ctx, path, dir)
	if serr != nil {
		return nil, "", configError{fmt.Errorf("%w\n(and the state dir %s cannot answer without it: %v)", broken, dir, serr)}
	}
	where := "as the file names it"
	if !fromFile {
		where = "the default: the file names none that can be read"
	}
	return scfg, where, nil
}

// warnStateOnly says on stderr that the config does not load and that
// the answer comes from the state dir alone.
func warnStateOnly(g *globals, scfg *config.Config, where string, broken error) {
	fmt.Fprintf(g.stderr, "svc-ctl: warning: the config does not load:\n%s\n", indent(broken.Error()))
	fmt.Fprintf(g.stderr, "svc-ctl: warning: answering from the state dir %s (%s) alone: services and jobs as svc-ctl recorded them, other keys at their defaults\n", scfg.Agent.StateDir, where)
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  ")
}
