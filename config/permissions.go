package config

import "errors"

// ErrInsecurePermissions marks a config file that non-administrators can
// change. Whoever writes the config chooses the commands the agent runs,
// so a privileged agent refuses it (errors.Is(err, ErrInsecurePermissions)).
var ErrInsecurePermissions = errors.New("config is writable by non-administrators")

// CheckTrusted refuses what non-administrators can change among the files
// that decide what a privileged svc-ctl runs: the config itself and every
// env_file (LD_PRELOAD in one runs code in a root service), and every
// [[notify]] secret file (whoever rewrites a url_file chooses where the
// events go, a secret_file what signs them). Each problem
// names the file and the command that fixes it (CheckPermissions).
func (c *Config) CheckTrusted() error {
	var errs []error
	dirs := map[string]bool{} // a directory shared by the config and env_files is judged once
	if c.Path != "" {
		errs = append(errs, checkPermissions("config", c.Path, dirs))
	}
	seen := map[string]bool{}
	check := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			errs = append(errs, checkPermissions("env_file", p, dirs))
		}
	}
	// Whoever can change an included file, or add one to a directory an
	// include globs in, chooses what the agent runs too.
	for _, f := range c.IncludedFiles() {
		if !seen[f] {
			seen[f] = true
			errs = append(errs, checkPermissions("included file", f, dirs))
		}
	}
	for _, d := range c.IncludeDirs() {
		errs = append(errs, checkDirPermissions("include directory", d))
	}
	for i := range c.Services {
		check(c.Services[i].EnvFile)
	}
	for i := range c.Jobs {
		check(c.Jobs[i].EnvFile)
	}
	for _, f := range c.SecretFiles() {
		if !seen[f] {
			seen[f] = true
			errs = append(errs, checkPermissions("secret file", f, dirs))
		}
	}
	// Whoever rewrites an otlp channel's CA chooses which server gets the
	// events; its client certificate goes with the (secret) key.
	for i := range c.Notify {
		for _, f := range []string{c.Notify[i].OTLP.CAFile, c.Notify[i].OTLP.CertFile} {
			if f != "" && !seen[f] {
				seen[f] = true
				errs = append(errs, checkPermissions("tls file", f, dirs))
			}
		}
	}
	return errors.Join(errs...)
}

// LoadToRun is the one load path of everything that runs, starts, stops or
// signals what a config names (the agent, its reload, and the CLI verbs
// start, stop, restart, drill, exec, pause, resume and the status page's
// actions): Load, then, when this process is privileged, CheckTrusted.
// Whoever can write the config or an env_file would otherwise choose what
// root runs.
func LoadToRun(path string) (*Config, error) {
	cfg, err := Load(path)
	if err != nil {
		return nil, err
	}
	if !userMode() {
		if err := cfg.CheckTrusted(); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}
