package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"svcctl/config"
	"svcctl/report"
	"svcctl/state"
)

// One trust rule for everything a privileged svc-ctl does: a config (or an
// env_file or secret file it names) that non-administrators can write is
// not trusted by the verbs that act (trust.go: refused) nor by those that
// read. Whoever writes such a file would choose what root prints: `svc-ctl
// logs x --config /home/u/evil.toml` with `log = "/etc/shadow"` printed
// /etc/shadow. A reader as root answers from the state dir alone instead
// (services, jobs, and each service's log where the agent recorded it),
// takes nothing from the file, and says so; `verify` FAILs `config trusted`.

// untrustedRead is the load of a reading verb as root: cfg is the file's
// config when it and every file it names are trusted (or when the file
// does not load: the callers' state-dir answer, degraded.go, takes over);
// otherwise handled is true and cfg is what the state dir says, or err why
// it cannot be answered either.
func untrustedRead(g *globals, path string) (cfg *config.Config, handled bool, err error) {
	if config.UserMode() {
		return nil, false, nil
	}
	why := trustProblem(path)
	if why == nil {
		return nil, false, nil
	}
	dir, from := agentStateDir()
	p := state.Paths{State: dir}
	if err := state.CheckExisting(p, true); err != nil {
		return nil, true, configError{fmt.Errorf("not trusting %s:\n%w\nand the state dir %s (%s) cannot be trusted either:\n%w\nrun without sudo, or make the file root-owned", path, why, dir, from, err)}
	}
	scfg, err := report.StateOnlyConfig(context.Background(), path, dir)
	if err != nil {
		return nil, true, err
	}
	fmt.Fprintf(g.stderr, "svc-ctl: warning: not trusting %s:\n%s\n", path, indent(why.Error()))
	fmt.Fprintf(g.stderr, "svc-ctl: warning: as root, answering from the state dir %s (%s) alone, each service's log where the agent recorded it, nothing from that file: run without sudo, or make the file root-owned (the commands above)\n", dir, from)
	return scfg, true, nil
}

// trustProblem says why a privileged process must not trust the config at
// path (CheckTrusted: the file, its env_files and secret files), nil when
// it may, or when the file cannot be judged (missing, unreadable, broken:
// the callers answer those).
func trustProblem(path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	if err := config.CheckPermissions(path); err != nil {
		if errors.Is(err, config.ErrInsecurePermissions) {
			return err
		}
		return nil
	}
	cfg, err := config.LoadToRead(path)
	if err != nil {
		return nil
	}
	if err := cfg.CheckTrusted(); errors.Is(err, config.ErrInsecurePermissions) {
		return err
	}
	return nil
}

// agentStateDir is the state dir a root reader trusts when the config it
// was handed is not trusted: the one the platform's default config names,
// when that file is trusted, else the platform's default.
func agentStateDir() (dir, from string) {
	def := config.DefaultConfigPath(false)
	if _, err := os.Stat(def); err == nil && trustProblem(def) == nil {
		if d, ok := config.PeekStateDir(def); ok {
			return d, "as " + def + " names it"
		}
	}
	return config.Canonical(config.DefaultStateDir(false)), "the default"
}
