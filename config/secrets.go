package config

import (
	"fmt"
	"net/url"
	"strings"
)

// NotifySecretKeys names (never quotes) the keys of the config file that
// hold a notification secret: a webhook's secret, an ntfy token, an ntfy or
// healthchecks URL (the topic, the check's UUID: the URL is the credential),
// a webhook URL with userinfo or a query, and every service's and job's
// ping. Whoever reads them can forge signed events, publish to or read the
// topic, or send "up" pings that hide a dead host (review2 R5).
func (c *Config) NotifySecretKeys() []string {
	var keys []string
	for i := range c.Notify {
		n := &c.Notify[i]
		p := fmt.Sprintf("notify %q.", n.Name)
		switch n.Kind {
		case NotifyNtfy, NotifyHealthchecks:
			if n.URL != "" {
				keys = append(keys, p+"url")
			}
		case NotifyWebhook:
			if u, err := url.Parse(n.URL); err == nil && (u.User != nil || u.RawQuery != "") {
				keys = append(keys, p+"url")
			}
		}
		if n.Secret != "" {
			keys = append(keys, p+"secret")
		}
		if n.Token != "" {
			keys = append(keys, p+"token")
		}
	}
	for i := range c.Services {
		if c.Services[i].Ping != "" {
			keys = append(keys, fmt.Sprintf("service %q.ping", c.Services[i].Name))
		}
	}
	for i := range c.Jobs {
		if c.Jobs[i].Ping != "" {
			keys = append(keys, fmt.Sprintf("job %q.ping", c.Jobs[i].Name))
		}
	}
	return keys
}

// SecretsExposed says, in one sentence for people, that the config file
// holds notification secrets (NotifySecretKeys) that other users of the
// host can read, and the command that fixes it; "" when it holds none or
// only its owner (and administrators) can read it. The secrets themselves
// are never in it. An error is a file that could not be judged.
func (c *Config) SecretsExposed() (string, error) {
	keys := c.NotifySecretKeys()
	if len(keys) == 0 || c.Path == "" {
		return "", nil
	}
	who, fix, err := readableByOthers(c.Path)
	if err != nil || who == "" {
		return "", err
	}
	shown := keys
	if len(shown) > 4 {
		shown = append(shown[:4:4], fmt.Sprintf("%d more", len(keys)-4))
	}
	return fmt.Sprintf("config %s holds notification secrets (%s) and is readable by %s: any local user can read them "+
		"(forge signed events, use the ntfy topic, send fake pings); run: %s", c.Path, strings.Join(shown, ", "), who, fix), nil
}
