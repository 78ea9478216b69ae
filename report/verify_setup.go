package report

import (
	"fmt"
	"os"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/state"
)

// The checks of how the agent is set up: installed as an OS service, its
// config and state dir and secrets trusted, its settings and the config in
// force the ones on disk.

func (v *verifier) installed() {
	i := v.env.Install
	switch {
	case !i.Known:
		v.add("agent installed", Warn, "could not ask the service manager: "+i.Detail)
	case !i.Installed:
		v.add("agent installed", Fail, "no svc-ctl OS service is installed ("+i.Platform+"): run 'svc-ctl install'; without it nothing starts the agent after a reboot")
	case i.Enabled != nil && !*i.Enabled:
		v.add("agent installed", Fail, fmt.Sprintf("installed as %s (%s) but NOT enabled: it runs until the next reboot and then never again; enable it (systemctl enable svc-ctl.service, or 'svc-ctl uninstall' then 'svc-ctl install')", i.Mode, i.Platform))
	default:
		v.add("agent installed", Pass, fmt.Sprintf("installed as %s (%s)%s", i.Mode, i.Platform, suffix(i.Detail)))
	}
}

// checkConfigTrusted is the name of the check that the config, and every
// env_file and secret file it names, only administrators can change.
const checkConfigTrusted = "config trusted"

// configTrusted is the one trust rule of a privileged svc-ctl, judged: the
// agent and every verb that acts refuse a file others can write, and a
// reader as root answers from the state dir alone (cmd's untrusted.go),
// so verify must not pass it.
func (v *verifier) configTrusted() {
	if config.UserMode() || v.cfg.Path == "" {
		return
	}
	if _, err := os.Stat(v.cfg.Path); err != nil {
		return
	}
	err := config.CheckPermissions(v.cfg.Path)
	if err == nil {
		err = v.cfg.CheckTrusted()
	}
	if err != nil {
		v.add(checkConfigTrusted, Fail, strings.ReplaceAll(err.Error(), "\n", "; ")+
			"; until it is fixed the agent and every verb that acts refuse it, and readers as root answer from the state dir alone")
		return
	}
	v.add(checkConfigTrusted, Pass, v.cfg.Path+": root's, writable by no one else, as is every env_file and secret file it names")
}

// checkStateTrusted is the name of the check that the state dir passes the
// check every verb that acts makes first (state.Check).
const checkStateTrusted = "state dir trusted"

// stateTrusted runs state.Check's verdict, read-only: a planted link or a
// file another user can write makes every privileged verb refuse the state
// dir and the agent lose evidence at its next restart (a snapshot it will
// not write through a link), so verify must not pass it.
func (v *verifier) stateTrusted() {
	privileged := !config.UserMode()
	if err := state.CheckExisting(v.p, privileged); err != nil {
		v.add(checkStateTrusted, Fail, strings.ReplaceAll(err.Error(), "\n", "; ")+
			"; until it is fixed every verb that acts (start, stop, restart, drill, the agent's next start) refuses the state dir")
		return
	}
	how := "owned by this user, no link, nothing another user can write"
	if !privileged {
		how = "a directory, not a link"
	}
	v.add(checkStateTrusted, Pass, v.p.State+": "+how)
}

// serviceSettings repeats, from what the service manager holds now, each
// optional setting install could not apply: one WARN per setting, so that a
// person (and the Windows harness) can tell them apart.
func (v *verifier) serviceSettings() {
	i := v.env.Install
	const name = "service manager settings"
	switch {
	case !i.Known || !i.Installed:
	case i.SettingsError != "":
		v.add(name, Warn, "could not read them back: "+i.SettingsError)
	case !i.SettingsChecked:
	case len(i.SettingWarnings) == 0:
		v.add(name, Pass, "every setting install applies is held")
	default:
		for _, w := range i.SettingWarnings {
			v.add(name, Warn, w)
		}
	}
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return "; " + s
}

// configInForce warns when the running agent's config is not the file on
// disk: changed since it was loaded, or reloaded with parts that need an
// agent restart.
func (v *verifier) configInForce() {
	if v.live == nil || v.live.Config == nil {
		return // no running agent to compare with (the heartbeat check says so)
	}
	if d := configDrift(v.cfg, v.live); d != nil {
		v.add("config in force", Warn, d.Words)
		return
	}
	if v.live.Config.Path != v.cfg.Path {
		v.add("config in force", Warn, fmt.Sprintf("the agent runs %s, not %s", v.live.Config.Path, v.cfg.Path))
		return
	}
	v.add("config in force", Pass, fmt.Sprintf("the agent runs %s as it is on disk (loaded %s)", v.cfg.Path, v.live.Config.LoadedAt.Format(time.RFC3339)))
}

// checkSecretsPrivate is the line about who can read the secrets of the
// config file: notification secrets and the values of env written in it;
// only for a config that has some.
const checkSecretsPrivate = "secrets private"

// secretsPrivate warns when the config holds secrets (notification keys,
// env values) that other users can read, naming the keys (never the
// values) and the fix.
func (v *verifier) secretsPrivate() {
	if len(v.cfg.SecretKeys()) == 0 {
		return
	}
	words, err := v.cfg.SecretsExposed()
	switch {
	case err != nil:
		v.add(checkSecretsPrivate, Warn, err.Error())
	case words != "":
		v.add(checkSecretsPrivate, Warn, words)
	default:
		v.add(checkSecretsPrivate, Pass, "other users cannot read "+v.cfg.Path)
	}
}
