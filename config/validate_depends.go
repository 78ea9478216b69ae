package config

import (
	"slices"
	"strings"
)

// DependKinds are the kinds of a depends entry (raw.go: its kind key's
// enum): dependency kinds, what must be true outside a service. They are
// not health checks, which are keys of [service.health] (HealthChecks).
var DependKinds = kindNames(typeRawDepend)

// dependCommon are the keys every dependency kind takes.
var dependCommon = commonKeys(typeRawDepend)

// depends validates a list of [[service.depends]] or [[job.depends]].
func (c *checker) depends(p string, raws []rawDepend) []Depend {
	// Each kind's keys besides those every kind takes (kind, timeout):
	// raw.go's kinds tags and the registered kinds' keys.
	kinds := keysOfKinds(typeRawDepend)
	out := make([]Depend, 0, len(raws))
	for i := range raws {
		d := c.depend(indexKey(p, i), &raws[i], kinds)
		if e := registered(typeRawDepend, d.Kind); e != nil {
			c.extKeys(indexKey(p, i), e, &d, &d.Keys)
		}
		out = append(out, d)
	}
	return out
}

func (c *checker) depend(p string, r *rawDepend, dependKinds map[string][]string) Depend {
	d := Depend{
		Kind:         r.Kind,
		URL:          r.URL,
		Address:      r.Address,
		Host:         r.Host,
		Path:         c.path(p+".path", r.Path),
		MaxAge:       c.nonNegative(p+".max_age", r.MaxAge, "0s"),
		MinValid:     c.nonNegative(p+".min_valid", r.MinValid, "0s"),
		ExpectStatus: r.ExpectStatus,
		Timeout:      c.positive(p+".timeout", r.Timeout, defaultDependTimeout),
	}
	uses, ok := dependKinds[r.Kind]
	switch {
	case r.Kind == "":
		c.fail(p+".kind", "missing kind: use %s", orList(DependKinds))
	case !ok:
		c.fail(p+".kind", "unknown kind %q: use %s", r.Kind, orList(DependKinds))
	default:
		c.unusedDependKeys(p, r.Kind, uses)
		c.dependTarget(p, r)
	}
	return d
}

// unusedDependKeys refuses keys the kind does not read: a `path` on a dns
// depend is a mistake that would otherwise check nothing.
func (c *checker) unusedDependKeys(p, kind string, uses []string) {
	for _, k := range acceptedKeys(typeRawDepend) {
		if slices.Contains(dependCommon, k) || slices.Contains(uses, k) {
			continue
		}
		if c.doc.has(p + "." + k) {
			c.fail(p+"."+k, "not used by kind %q: remove it (kind %s uses %s)", kind, kind, strings.Join(uses, ", "))
		}
	}
}

// dependTarget checks the kind-specific key that says what to check.
func (c *checker) dependTarget(p string, r *rawDepend) {
	switch r.Kind {
	case "http":
		if c.required(p, r.Kind, "url", r.URL, `url = "https://example.com/health"`) {
			c.httpURL(p+".url", r.URL, false)
		}
		c.expectStatus(p+".expect_status", r.ExpectStatus)
	case "tcp":
		if c.required(p, r.Kind, "address", r.Address, `address = "db.example.com:5432"`) {
			c.hostPort(p+".address", r.Address, "db.example.com:5432", false)
		}
	case "dns":
		if c.required(p, r.Kind, "host", r.Host, `host = "api.example.com"`) && strings.ContainsAny(r.Host, " /:@") {
			c.fail(p+".host", "invalid host %q: use a DNS name like api.example.com (no scheme, port or path)", r.Host)
		}
	case "file":
		c.required(p, r.Kind, "path", r.Path, `path = "/srv/data/ready"`)
	case "cert":
		c.certTarget(p, r)
	}
}

func (c *checker) certTarget(p string, r *rawDepend) {
	switch {
	case r.Path == "" && r.URL == "":
		c.fail(p+".path", `kind "cert" needs path (a PEM file) or url (an https:// endpoint): set path = "/srv/proxy/client.pem" or url = "https://example.com"`)
	case r.Path != "" && r.URL != "":
		c.fail(p+".url", `kind "cert" takes path or url, not both: remove one`)
	case r.URL != "":
		c.httpURL(p+".url", r.URL, true)
	}
}

// required reports a kind-specific key left out; it returns whether v is set.
func (c *checker) required(p, kind, key, v, example string) bool {
	if v != "" {
		return true
	}
	c.fail(p+"."+key, "kind %q needs %s: set %s", kind, key, example)
	return false
}
