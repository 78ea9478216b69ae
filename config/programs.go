package config

import (
	"fmt"

	"svcctl/internal/svcenv"
)

// ProgramWarnings says, for every command of the config that names its
// program bare ("python3", not "/usr/bin/python3"), where the process will
// not find what the person expects: the program is not in the PATH the
// service (or job, or check, or channel) gets — its user's base PATH and
// search_path, internal/svcenv — or it is another file there than the one
// this svc-ctl's own PATH (a person's shell) finds. `config check` prints
// them; each names both files (or the PATH searched) and what to write.
// The agent resolves every program again at each start.
func (c *Config) ProgramWarnings() []string {
	var out []string
	check := func(where string, argv []string, p svcenv.Process) {
		if len(argv) == 0 {
			return
		}
		if m := p.Mismatch(argv[0]); m != "" {
			out = append(out, where+": "+m)
		}
	}
	for i := range c.Services {
		s := &c.Services[i]
		id, _ := s.RunAs.Identity()
		p := svcenv.Process{RunAs: id, Env: s.Env, SearchPath: s.SearchPath, Dir: s.Dir}
		check(fmt.Sprintf("service %q: command", s.Name), s.Command, p)
		check(fmt.Sprintf("service %q: health.exec", s.Name), s.Health.Exec, p)
	}
	for i := range c.Jobs {
		j := &c.Jobs[i]
		id, _ := j.RunAs.Identity()
		check(fmt.Sprintf("job %q: command", j.Name), j.Command, svcenv.Process{RunAs: id, Env: j.Env, SearchPath: j.SearchPath, Dir: j.Dir})
	}
	for i := range c.Notify {
		n := &c.Notify[i]
		if n.Kind != NotifyCommand {
			continue
		}
		id, _ := n.RunAs.Identity()
		check(fmt.Sprintf("notify %q: command", n.Name), n.Command, svcenv.Process{RunAs: id})
	}
	return out
}
