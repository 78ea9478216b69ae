package config

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"slices"
	"strings"

	"svcctl/internal/fsutil"
)

// otlpReserved are the resource attributes svc-ctl sets itself
// (docs/fleet.md, "Attributes"): resource_attributes cannot replace them,
// or a fleet's queries could not trust them.
var otlpReserved = []string{"service.name", "service.version", "service.instance.id", "host.name", "host.id", "os.type"}

// otlp validates the keys only kind otlp reads.
func (c *checker) otlp(p string, r *rawNotify) OTLP {
	o := OTLP{
		Encoding:           text(nonEmpty(r.Encoding), defaultOTLPEncoding),
		Rows:               text(nonEmpty(r.Rows), defaultOTLPRows),
		Gzip:               boolOr(r.Gzip, defaultOTLPGzip),
		MetricsEvery:       c.nonNegative(p+".metrics_every", r.MetricsEvery, defaultOTLPMetricsEvery),
		ResourceAttributes: r.ResourceAttributes,
	}
	if c.doc.has(p + ".min_interval") {
		c.fail(p+".min_interval", "not used by kind %q: it sends what is due in batches instead of folding "+
			"a subject's events; remove it (use `on` to choose the events)", NotifyOTLP)
	}
	if o.MetricsEvery > 0 {
		c.atLeast(p+".metrics_every", r.MetricsEvery, defaultOTLPMetricsEvery, minMetricsEvery)
	}
	c.oneOf(p+".encoding", o.Encoding, OTLPProtobuf, OTLPJSON)
	c.oneOf(p+".rows", o.Rows, OTLPRowsNotable, OTLPRowsAll, OTLPRowsNone)
	for _, k := range slices.Sorted(mapKeys(r.ResourceAttributes)) {
		if slices.Contains(otlpReserved, k) {
			c.fail(joinKey(p+".resource_attributes", k), "%q is set by svc-ctl itself (docs/fleet.md, \"Attributes\"): remove it", k)
		}
	}
	o.Headers = c.otlpHeaders(p+".headers", r.Headers)
	if r.HeadersFile != "" {
		o.HeadersFile = c.path(p+".headers_file", r.HeadersFile)
		o.FileHeaders = c.otlpHeadersFile(p+".headers_file", o.HeadersFile)
		for _, k := range slices.Sorted(mapKeys(o.FileHeaders)) {
			for h := range o.Headers {
				if http.CanonicalHeaderKey(h) == http.CanonicalHeaderKey(k) {
					c.fail(p+".headers_file", "header %q is in headers and in headers_file: keep it in one", k)
				}
			}
		}
	}
	o.CAFile = c.path(p+".ca_file", r.CAFile)
	o.CertFile = c.path(p+".cert_file", r.CertFile)
	o.KeyFile = c.path(p+".key_file", r.KeyFile)
	c.otlpTLS(p, o)
	return o
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// headerName checks a header's name (a token, RFC 9110) and value (no
// line breaks: a header cannot smuggle another); the value is never shown.
func headerProblem(name, value string) string {
	if name == "" || strings.IndexFunc(name, func(r rune) bool {
		return r <= ' ' || r >= 0x7f || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r)
	}) >= 0 {
		return fmt.Sprintf("invalid header name %q: use a name like X-Scope-OrgID (letters, digits and -)", name)
	}
	if strings.ContainsAny(value, "\r\n\x00") {
		return fmt.Sprintf("header %q: the value holds a line break or NUL (not shown): write it on one line", name)
	}
	switch http.CanonicalHeaderKey(name) {
	case "Content-Type", "Content-Encoding", "Content-Length", "Host", "User-Agent":
		return fmt.Sprintf("header %q is svc-ctl's to set: remove it", name)
	}
	return ""
}

func (c *checker) otlpHeaders(path string, h map[string]string) map[string]string {
	for _, k := range slices.Sorted(mapKeys(h)) {
		if msg := headerProblem(k, h[k]); msg != "" {
			c.fail(joinKey(path, k), "%s", msg)
		}
	}
	return h
}

// otlpHeadersFile reads "Name: value" lines (blank lines and # comments
// skipped) from a secret file: link-free, regular, at most 64 KiB. Under
// LoadToRead a file this process may not read is listed as unread.
func (c *checker) otlpHeadersFile(key, path string) map[string]string {
	f, err := fsutil.Open(path)
	if err != nil {
		if c.deniedEnvFileOK && errors.Is(err, fs.ErrPermission) {
			if !slices.Contains(c.unread, path) {
				c.unread = append(c.unread, path)
			}
			return nil
		}
		c.fail(key, "cannot read %s: %v", path, unwrapPath(err))
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(io.LimitReader(f, maxSecretFile))
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok {
			c.fail(key, "%s line %d: want \"Name: value\" (the line is not shown)", path, n)
			continue
		}
		if msg := headerProblem(name, value); msg != "" {
			c.fail(key, "%s line %d: %s", path, n, msg)
			continue
		}
		if _, dup := out[http.CanonicalHeaderKey(name)]; dup {
			c.fail(key, "%s line %d: header %q is set twice: keep one", path, n, name)
			continue
		}
		out[http.CanonicalHeaderKey(name)] = value
	}
	if err := sc.Err(); err != nil {
		c.fail(key, "cannot read %s: %v", path, err)
	}
	return out
}

// otlpTLS checks that the CA and the client certificate load, so that a
// wrong file is found by `config check`, not by the first export.
func (c *checker) otlpTLS(p string, o OTLP) {
	if (o.CertFile == "") != (o.KeyFile == "") {
		missing := "key_file"
		if o.CertFile == "" {
			missing = "cert_file"
		}
		c.fail(p+"."+missing, "a client certificate needs cert_file and key_file: set %s too, or remove the other", missing)
		return
	}
	if o.CAFile != "" {
		if b, ok := c.readTLSFile(p+".ca_file", o.CAFile); ok && !x509.NewCertPool().AppendCertsFromPEM(b) {
			c.fail(p+".ca_file", "%s holds no PEM certificate: name the CA's certificate file", o.CAFile)
		}
	}
	if o.CertFile != "" {
		cert, ok1 := c.readTLSFile(p+".cert_file", o.CertFile)
		key, ok2 := c.readTLSFile(p+".key_file", o.KeyFile)
		if ok1 && ok2 && cert != nil && key != nil {
			if _, err := tls.X509KeyPair(cert, key); err != nil {
				c.fail(p+".cert_file", "cert_file and key_file do not load as a pair: %v", err)
			}
		}
	}
}

// readTLSFile reads a PEM file without following a link; (nil, true) when
// this process may not read it under LoadToRead (it is listed as unread).
func (c *checker) readTLSFile(key, path string) ([]byte, bool) {
	b, err := fsutil.ReadFile(path)
	if err != nil {
		if c.deniedEnvFileOK && errors.Is(err, fs.ErrPermission) {
			if !slices.Contains(c.unread, path) {
				c.unread = append(c.unread, path)
			}
			return nil, true
		}
		c.fail(key, "cannot read %s: %v", path, unwrapPath(err))
		return nil, false
	}
	return b, true
}
