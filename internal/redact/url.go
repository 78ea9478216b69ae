package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// urlRE finds URLs in free text: a scheme, "://", and everything up to white
// space or a quote.
var urlRE = regexp.MustCompile("[A-Za-z][A-Za-z0-9+.-]*://[^\\s\"'<>`]+")

// URL hides what a URL may carry as a secret: its userinfo (user and
// password: "https://TOKEN@host" has the token as its user) and every query
// and fragment value; scheme, host, port and path are evidence and stay as
// written. A URL with nothing to hide comes back exactly as given. One that
// does not parse comes back whole when it has no '@', '?' or '#' (nothing that
// could be a credential), else as the placeholder.
func URL(raw string) string {
	if !strings.ContainsAny(raw, "@?#") {
		return raw // no userinfo, query or fragment: nothing to hide
	}
	// A URL redacted before ("https://[redacted]@host") must parse again and
	// come back the same: the placeholder is not valid in userinfo.
	u, err := url.Parse(strings.ReplaceAll(raw, Placeholder, sentinel))
	if err != nil {
		return Placeholder
	}
	if u.Opaque != "" { // mailto:someone@example.com
		return u.Scheme + ":" + Placeholder
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + "://")
	}
	if u.User != nil {
		b.WriteString(Placeholder + "@")
	}
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" || u.ForceQuery {
		b.WriteString("?" + query(u.RawQuery))
	}
	if u.Fragment != "" {
		b.WriteString("#" + Placeholder)
	}
	return strings.ReplaceAll(b.String(), sentinel, Placeholder)
}

// sentinel stands in for the placeholder while a URL is parsed.
const sentinel = "svcctl0redacted0"

// query keeps the keys and hides the values; a part without "=" may itself
// be a key (an API key passed bare), so it goes too.
func query(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		if k, _, ok := strings.Cut(p, "="); ok {
			parts[i] = k + "=" + Placeholder
		} else if p != "" {
			parts[i] = Placeholder
		}
	}
	return strings.Join(parts, "&")
}

// SecretURL is for a URL that is a credential as a whole: an ntfy topic, a
// healthchecks ping UUID, a webhook with a token in its path. Unlike URL it
// hides the path too, keeping only the scheme and host, so a person can still
// tell which server it names: https://ntfy.example.org/[redacted]. Text that
// does not parse as a URL with a host comes back as the placeholder.
func SecretURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return Placeholder
	}
	out := u.Scheme + "://" + u.Host
	if u.User != nil || u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		out += "/" + Placeholder
	}
	return out
}
