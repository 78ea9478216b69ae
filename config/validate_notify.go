package config

import (
	"errors"
	"io/fs"
	"net/url"
	"slices"
	"strings"
)

// ntfyPriorities are ntfy's own priority names.
var ntfyPriorities = []string{"min", "low", "default", "high", "urgent"}

// notifyCommon are the keys every kind takes (name, kind, on, timeout).
var notifyCommon = commonKeys(typeRawNotify)

// notifies validates every [[notify]]; names are unique among channels.
func (c *checker) notifies(raws []rawNotify) []Notify {
	seen := map[string]int{}
	// Each kind's keys besides those every kind takes: raw.go's kinds tags
	// and the registered kinds' keys, read once per file.
	kinds := keysOfKinds(typeRawNotify)
	out := make([]Notify, 0, len(raws))
	for i := range raws {
		p := indexKey("notify", i)
		c.name(p, raws[i].Name, seen)
		n := c.notify(p, &raws[i], kinds)
		if e := registered(typeRawNotify, n.Kind); e != nil {
			c.extKeys(p, e, &n, &n.Keys)
		}
		out = append(out, n)
	}
	return out
}

func (c *checker) notify(p string, r *rawNotify, notifyKinds map[string][]string) Notify {
	n := Notify{
		Name:        r.Name,
		Kind:        r.Kind,
		URL:         r.URL,
		On:          c.eventKinds(p+".on", r.On),
		MinInterval: c.nonNegative(p+".min_interval", r.MinInterval, defaultNotifyMinInterval),
		Secret:      r.Secret,
		Token:       r.Token,
		Priority:    r.Priority,
		Tags:        r.Tags,
		Command:     r.Command,
		Timeout:     c.positive(p+".timeout", r.Timeout, defaultNotifyTimeout),
	}
	uses, ok := notifyKinds[r.Kind]
	switch {
	case r.Kind == "":
		c.fail(p+".kind", "missing kind: use %s", orList(NotifyKinds))
	case !ok:
		c.fail(p+".kind", "unknown kind %q: use %s", r.Kind, orList(NotifyKinds))
	default:
		c.unusedNotifyKeys(p, r.Kind, uses)
		urlKey := "url"
		if slices.Contains(uses, "url_file") {
			n.URL, n.URLFile = c.notifySecretFile(p, "url", r.URL, r.URLFile)
			if n.URLFile != "" {
				urlKey = "url_file"
			}
		}
		if slices.Contains(uses, "secret_file") {
			n.Secret, n.SecretFile = c.notifySecretFile(p, "secret", r.Secret, r.SecretFile)
		}
		if slices.Contains(uses, "token_file") {
			n.Token, n.TokenFile = c.notifySecretFile(p, "token", r.Token, r.TokenFile)
		}
		c.notifyTarget(p, r, urlKey, n.URL)
		if r.Kind == NotifyOTLP {
			n.OTLP = c.otlp(p, r)
			n.MinInterval = 0 // it batches instead (otlp refuses the key)
		}
		switch {
		case r.Kind != NotifyCommand:
		case r.Group != "" && r.User == "":
			// A group alone would run the command as the agent's user
			// (root) with that group: not what `user`/`group` promise.
			c.fail(p+".group", "a command channel with group needs user too: set user = \"NAME\" (group alone would run it as the agent's own user)")
		default:
			// The service's `user` rule: a system agent runs the command as
			// that user, never as root when one is named.
			n.RunAs = c.runAs(p, r.User, r.Group)
		}
	}
	return n
}

// notifySecretFile returns the value of key: as written, or read from
// key_file (and that file's absolute path). A file this process may not
// read is, for the read-only verbs (LoadToRead), listed as unread like an
// env_file, its value left empty; for everything else it is an error.
func (c *checker) notifySecretFile(p, key, value, file string) (string, string) {
	if file == "" {
		return value, ""
	}
	fileKey := p + "." + key + "_file"
	if value != "" {
		c.fail(fileKey, "%s and %s_file are both set: keep one (%s_file keeps the secret out of this file)", key, key, key)
		return value, ""
	}
	path := c.path(fileKey, file)
	v, err := readSecretFile(path)
	if err != nil && c.deniedEnvFileOK && errors.Is(err, fs.ErrPermission) {
		if !slices.Contains(c.unread, path) {
			c.unread = append(c.unread, path)
		}
		return placeholderUnread, path
	}
	if err != nil {
		c.fail(fileKey, "%v", err)
		return "", path
	}
	return v, path
}

// placeholderUnread stands for a value in a file this process may not read
// (LoadToRead): it is never sent anywhere, as nothing that sends loads so.
const placeholderUnread = "https://unread.invalid/secret-file"

// unusedNotifyKeys refuses keys the kind does not read: a `secret` on an
// ntfy channel would otherwise look like it protects something.
func (c *checker) unusedNotifyKeys(p, kind string, uses []string) {
	for _, k := range acceptedKeys(typeRawNotify) {
		if k == "min_interval" && kind == NotifyOTLP {
			continue // otlp says why itself
		}
		if slices.Contains(notifyCommon, k) || slices.Contains(uses, k) {
			continue
		}
		if c.doc.has(p + "." + k) {
			what := "no other keys"
			if len(uses) > 0 {
				what = strings.Join(uses, ", ")
			}
			c.fail(p+"."+k, "not used by kind %q: remove it (kind %s uses %s)", kind, kind, what)
		}
	}
}

// notifyTarget checks what the kind needs to reach somebody; u is the URL
// as written at key urlKey (url, or read from url_file).
func (c *checker) notifyTarget(p string, r *rawNotify, urlKey, u string) {
	if r.URLFile != "" && u == "" {
		return // its url_file was refused, and that error says why (not "needs url")
	}
	switch r.Kind {
	case NotifyWebhook:
		if c.required(p, r.Kind, "url", u, `url = "https://hooks.example.com/svc-ctl"`) {
			c.secretURL(p+"."+urlKey, u, "https://hooks.example.com/svc-ctl")
		}
	case NotifyNtfy:
		if c.required(p, r.Kind, "url", u, `url = "https://ntfy.sh/TOPIC"`) {
			c.ntfyURL(p+"."+urlKey, u)
		}
		if r.Priority != "" {
			c.oneOf(p+".priority", r.Priority, ntfyPriorities...)
		}
	case NotifyHealthchecks:
		if c.required(p, r.Kind, "url", u, `url = "https://hc-ping.com/UUID"`) {
			c.secretURL(p+"."+urlKey, u, "https://hc-ping.com/UUID")
		}
	case NotifyDesktop:
		if !c.user {
			c.fail(p+".kind", `kind "desktop" needs the per-user agent (svc-ctl install --user): `+
				`a system agent has no desktop session to show it in; use ntfy or webhook in this config`)
		}
	case NotifyCommand:
		c.command(p+".command", r.Command, "")
	case NotifyOTLP:
		if c.required(p, r.Kind, "url", u, `url = "https://collector.example.org:4318"`) {
			c.secretURL(p+"."+urlKey, u, "https://collector.example.org:4318")
		}
	}
}

// ntfyURL checks an ntfy topic URL: a server and a topic.
func (c *checker) ntfyURL(path, v string) {
	if !c.secretURL(path, v, "https://ntfy.sh/TOPIC") {
		return
	}
	if u, _ := url.Parse(v); strings.Trim(u.Path, "/") == "" {
		c.fail(path, "no topic: write the topic as the path, like https://ntfy.sh/TOPIC")
	}
}

// secretURL checks an http(s) URL that is a credential as a whole (a topic,
// a ping UUID, a hook token): the message never echoes it, not even in part.
func (c *checker) secretURL(path, v, example string) bool {
	u, err := url.Parse(v)
	if err == nil && u.Host != "" && (u.Scheme == "https" || u.Scheme == "http") {
		return true
	}
	c.fail(path, "invalid URL (not shown: it may hold a secret): use an http:// or https:// URL with a host, like %s", example)
	return false
}

// eventKinds checks an `on` list against the closed list of event kinds.
func (c *checker) eventKinds(path string, on []string) []string {
	for i, k := range on {
		if !slices.Contains(EventKinds, k) {
			c.fail(indexKey(path, i), "unknown event %q: use %s", k, orList(EventKinds))
		}
	}
	return on
}

// pingKeys returns a service's or job's ping URL, as written or read from
// ping_file, checked, and the file.
func (c *checker) pingKeys(p, v, file string) (string, string) {
	v, file = c.notifySecretFile(p, "ping", v, file)
	key := ".ping"
	if file != "" {
		key = ".ping_file"
	}
	return c.ping(p+key, v), file
}

// ping checks a service's or job's healthchecks-style ping URL.
func (c *checker) ping(path, v string) string {
	if v != "" {
		c.secretURL(path, v, "https://hc-ping.com/UUID")
	}
	return v
}
