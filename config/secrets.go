package config

import (
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"svcctl/internal/fsutil"
	"svcctl/internal/redact"
)

// NotifySecretKeys names (never quotes) the keys of the config file that
// hold a notification secret: a webhook's secret, an ntfy token, an ntfy or
// healthchecks URL (the topic, the check's UUID: the URL is the credential),
// a webhook URL with userinfo or a query, and every service's and job's
// ping. Whoever reads them can forge signed events, publish to or read the
// topic, or send "up" pings that hide a dead host.
func (c *Config) NotifySecretKeys() []string {
	var keys []string
	for i := range c.Notify {
		n := &c.Notify[i]
		p := fmt.Sprintf("notify %q.", n.Name)
		switch {
		case n.URLFile != "": // kept out of the config
		case n.Kind == NotifyNtfy || n.Kind == NotifyHealthchecks:
			if n.URL != "" {
				keys = append(keys, p+"url")
			}
		default: // a URL that is an address, a credential only with a user or a query
			if u, err := url.Parse(n.URL); err == nil && (u.User != nil || u.RawQuery != "") {
				keys = append(keys, p+"url")
			}
		}
		if n.Secret != "" && n.SecretFile == "" {
			keys = append(keys, p+"secret")
		}
		if n.Token != "" && n.TokenFile == "" {
			keys = append(keys, p+"token")
		}
		if len(n.OTLP.Headers) > 0 {
			keys = append(keys, p+"headers")
		}
		extValues(n.Keys, "secret", func(f reflect.StructField, vs []string) {
			if name := tomlName(f); name != "-" && slices.ContainsFunc(vs, func(v string) bool { return v != "" }) {
				keys = append(keys, p+name)
			}
		})
	}
	if c.Agent.Ping != "" && c.Agent.PingFile == "" {
		keys = append(keys, "agent.ping")
	}
	for i := range c.Services {
		if c.Services[i].Ping != "" && c.Services[i].PingFile == "" {
			keys = append(keys, fmt.Sprintf("service %q.ping", c.Services[i].Name))
		}
	}
	for i := range c.Jobs {
		if c.Jobs[i].Ping != "" && c.Jobs[i].PingFile == "" {
			keys = append(keys, fmt.Sprintf("job %q.ping", c.Jobs[i].Name))
		}
	}
	return keys
}

// EnvSecretKeys names (never quotes) the env entries written in the config
// file itself whose values are secrets: every one but a harmless value (a
// number, an address, a boolean, under four characters: the redaction
// rule's, internal/redact). env_file's are in a file of their own.
func (c *Config) EnvSecretKeys() []string {
	var keys []string
	add := func(what, name string, envKeys []string, env map[string]string) {
		for _, k := range envKeys {
			if v, ok := env[k]; ok && !redact.Harmless(v) {
				keys = append(keys, fmt.Sprintf("%s %q.env.%s", what, name, k))
			}
		}
	}
	for i := range c.Services {
		add("service", c.Services[i].Name, c.Services[i].EnvKeys, c.Services[i].Env)
	}
	for i := range c.Jobs {
		add("job", c.Jobs[i].Name, c.Jobs[i].EnvKeys, c.Jobs[i].Env)
	}
	return keys
}

// SecretKeys are every key of the config file that holds a secret:
// NotifySecretKeys, then EnvSecretKeys.
func (c *Config) SecretKeys() []string { return append(c.NotifySecretKeys(), c.EnvSecretKeys()...) }

// SecretFiles lists the url_file, secret_file and token_file paths of the
// [[notify]] tables and the ping_file of services and jobs, each once.
func (c *Config) SecretFiles() []string {
	var out []string
	seen := map[string]bool{}
	add := func(fs ...string) {
		for _, f := range fs {
			if f != "" && !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	for i := range c.Notify {
		add(c.Notify[i].URLFile, c.Notify[i].SecretFile, c.Notify[i].TokenFile, c.Notify[i].OTLP.HeadersFile, c.Notify[i].OTLP.KeyFile)
	}
	for _, keys := range c.extKeys() {
		extValues(keys, "secretfile", func(_ reflect.StructField, vs []string) { add(vs...) })
	}
	add(c.Agent.PingFile)
	for i := range c.Services {
		add(c.Services[i].PingFile)
	}
	for i := range c.Jobs {
		add(c.Jobs[i].PingFile)
	}
	return out
}

// SecretsExposed says, in one sentence for people per file, that the
// config file holds secrets (SecretKeys: notification keys, env values) that other
// users of the host can read, or that a secret_file, token_file or url_file
// is readable by them, and the command that fixes it; "" when nothing is
// exposed. The secrets themselves are never in it. An error is a file that
// could not be judged.
func (c *Config) SecretsExposed() (string, error) {
	var out []string
	var errs []error
	if keys := c.SecretKeys(); len(keys) > 0 && c.Path != "" {
		who, fix, err := readableByOthers(c.Path)
		errs = append(errs, err)
		if who != "" {
			shown := keys
			if len(shown) > 4 {
				shown = append(shown[:4:4], fmt.Sprintf("%d more", len(keys)-4))
			}
			out = append(out, fmt.Sprintf("config %s holds secrets (%s) and is readable by %s, who can use them "+
				"(a service's credentials, forge signed events, use the ntfy topic, send fake pings); run: %s, or move them to env_file, secret_file, token_file, url_file, ping_file",
				c.Path, strings.Join(shown, ", "), who, fix))
		}
	}
	for _, f := range c.SecretFiles() {
		who, fix, err := readableByOthers(f)
		errs = append(errs, err)
		if who != "" {
			out = append(out, fmt.Sprintf("secret file %s is readable by %s, who can use the secret; run: %s", f, who, fix))
		}
	}
	return strings.Join(out, "; "), errors.Join(errs...)
}

// maxSecretFile bounds a secret_file, token_file or url_file: one line.
const maxSecretFile = 64 << 10

// readSecretFile reads the one-line secret at path: without following a
// link in its last element and only a regular file (fsutil.Open), trailing
// spaces and the line end trimmed. Errors never quote the contents.
func readSecretFile(path string) (string, error) {
	f, err := fsutil.Open(path)
	switch {
	case errors.Is(err, fsutil.ErrSymlink):
		return "", fmt.Errorf("%s is a symbolic link: svc-ctl reads a secret file only as itself; name the file it points to", path)
	case errors.Is(err, fsutil.ErrNotRegular):
		return "", fmt.Errorf("%s is not a regular file: a secret file holds one line", path)
	case err != nil:
		return "", fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFile+1))
	if err != nil {
		return "", fmt.Errorf("cannot read %s: %w", path, unwrapPath(err))
	}
	if len(b) > maxSecretFile {
		return "", fmt.Errorf("%s is larger than 64KiB: a secret file holds one line (not shown)", path)
	}
	v := strings.TrimRight(string(b), " \t\r\n")
	switch {
	case v == "":
		return "", fmt.Errorf("%s is empty: write the secret on one line", path)
	case strings.ContainsAny(v, "\r\n"):
		return "", fmt.Errorf("%s holds more than one line: write the secret alone on one line (not shown)", path)
	}
	return strings.TrimLeft(v, " \t"), nil
}
