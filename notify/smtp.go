package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/textproto"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"svcctl/config"
	"svcctl/internal/redact"
)

// The smtp channel mails each event (or held batch) to people: the same
// title and text an ntfy channel sends, as the Subject and the body. It is
// the whole channel in one file: its keys (registered into config's one
// schema below), their rules, and the delivery, through the standard
// library's net/smtp (STARTTLS, AUTH PLAIN, and no dependency to keep).

// smtpKeys are a [[notify]] smtp table's keys besides name, kind, on,
// timeout and the shared url and min_interval.
type smtpKeys struct {
	From         string   `toml:"from" doc:"the sender address"`
	To           []string `toml:"to" doc:"the recipients"`
	Username     string   `toml:"username" doc:"the login, sent with AUTH PLAIN over TLS; empty: no login" show:"set"`
	PasswordFile string   `toml:"password_file" type:"path" secretfile:"Password" doc:"a file holding the password on one line" show:"set"`
	StartTLS     string   `toml:"starttls" default:"auto" doc:"auto: STARTTLS whenever the server offers it; always: only then; never"`
	// Password is read from PasswordFile at load: never written in the
	// config, never printed or logged.
	Password string `toml:"-" secret:"true"`
}

// STARTTLS policies of an smtp:// URL.
const (
	startTLSAuto   = "auto"
	startTLSAlways = "always"
	startTLSNever  = "never"
)

func init() {
	register(config.NotifyKind{
		Name: "smtp", Keys: smtpKeys{}, Shared: []string{"url", "min_interval"}, Check: checkSMTP,
	}, openSMTP)
}

// checkSMTP is the kind's rules, run at load.
func checkSMTP(n *config.Notify, fail func(key, format string, args ...any)) {
	k := n.Keys.(*smtpKeys)
	u, err := url.Parse(n.URL)
	switch {
	case n.URL == "":
		fail("url", `kind "smtp" needs url: set url = "smtp://mail.example.org:587"`)
	case err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" || u.Port() == "":
		fail("url", "invalid URL: use smtp://HOST:PORT (STARTTLS when offered; 587 is submission) or smtps://HOST:PORT (TLS from the start; usually 465)")
	case u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "":
		fail("url", "invalid URL: write only smtp://HOST:PORT; the login goes in username and password_file")
	case u.Scheme == "smtps" && k.StartTLS != startTLSAuto:
		fail("starttls", "starttls is for smtp:// URLs; an smtps:// server speaks TLS from the first byte: remove it")
	}
	if _, err := mail.ParseAddress(k.From); err != nil {
		fail("from", `invalid sender %q: set from = "svc-ctl@example.org"`, k.From)
	}
	if len(k.To) == 0 {
		fail("to", `kind "smtp" needs recipients: set to = ["ops@example.org"]`)
	}
	for _, a := range k.To {
		if _, err := mail.ParseAddress(a); err != nil {
			fail("to", "invalid recipient %q: write one address per string, like \"ops@example.org\"", a)
		}
	}
	if !slices.Contains([]string{startTLSAuto, startTLSAlways, startTLSNever}, k.StartTLS) {
		fail("starttls", "unknown value %q: use auto, always or never", k.StartTLS)
	}
	switch {
	case (k.Username == "") != (k.PasswordFile == ""):
		fail("username", "username and password_file go together: set both, or neither for a server that takes mail without a login")
	case k.Username != "" && k.StartTLS == startTLSNever && err == nil && !loopback(u.Hostname()):
		fail("starttls", `starttls = "never" would send the password unencrypted: use "auto", or smtps://`)
	}
}

func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// smtpRoots verifies the server's certificate; nil: the system's roots.
// A test sets its own server's.
var smtpRoots *x509.CertPool

type smtpChannel struct {
	keys     smtpKeys
	host     string // as in the URL: the name the certificate must carry
	addr     string // host:port
	implicit bool   // smtps://
	red      *redact.Redactor
}

func openSMTP(n *config.Notify) (Channel, error) {
	k, ok := n.Keys.(*smtpKeys)
	u, err := url.Parse(n.URL)
	if !ok || err != nil {
		return nil, errors.New("smtp: the channel's keys were not loaded through config.Load")
	}
	return &smtpChannel{keys: *k, host: u.Hostname(), addr: u.Host, implicit: u.Scheme == "smtps",
		red: redact.New(k.Password)}, nil
}

// Send mails e to every recipient in one transaction. A 5xx reply (a
// refused login, sender or recipient) is permanent, like an HTTP 4xx; a
// 4xx reply and every network error are retried. No error holds the
// password.
func (c *smtpChannel) Send(ctx context.Context, e *Event) error {
	if err := c.send(ctx, c.message(e)); err != nil {
		var tp *textproto.Error
		msg := fmt.Errorf("smtp %s: %s", c.addr, c.red.String(err.Error()))
		if errors.As(err, &tp) && tp.Code >= 500 || IsPermanent(err) {
			return Permanent(msg)
		}
		return msg
	}
	return nil
}

func (c *smtpChannel) send(ctx context.Context, msg []byte) error {
	conn, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() }) // the context's end ends the dialogue
	defer stop()
	cl, err := smtp.NewClient(conn, c.host)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Hello(helloName()); err != nil {
		return err
	}
	if err := c.startTLS(cl); err != nil {
		return err
	}
	if c.keys.Username != "" {
		if _, tlsOn := cl.TLSConnectionState(); !tlsOn && !loopback(c.host) {
			return Permanent(errors.New("the server offers no STARTTLS and the password is never sent unencrypted: use smtps:// or a server that offers STARTTLS"))
		}
		if err := cl.Auth(smtp.PlainAuth("", c.keys.Username, c.keys.Password, c.host)); err != nil {
			return fmt.Errorf("login as %s refused: %w", c.keys.Username, err)
		}
	}
	if err := cl.Mail(address(c.keys.From)); err != nil {
		return err
	}
	for _, to := range c.keys.To {
		if err := cl.Rcpt(address(to)); err != nil {
			return err
		}
	}
	w, err := cl.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return cl.Quit()
}

func (c *smtpChannel) tlsConfig() *tls.Config {
	return &tls.Config{ServerName: c.host, RootCAs: smtpRoots, MinVersion: tls.VersionTLS12}
}

func (c *smtpChannel) dial(ctx context.Context) (net.Conn, error) {
	if c.implicit {
		return (&tls.Dialer{Config: c.tlsConfig()}).DialContext(ctx, "tcp", c.addr)
	}
	return (&net.Dialer{}).DialContext(ctx, "tcp", c.addr)
}

// startTLS upgrades an smtp:// dialogue whenever the server offers it,
// unless starttls = "never"; "always" refuses a server that does not.
func (c *smtpChannel) startTLS(cl *smtp.Client) error {
	if c.implicit || c.keys.StartTLS == startTLSNever {
		return nil
	}
	if ok, _ := cl.Extension("STARTTLS"); !ok {
		if c.keys.StartTLS == startTLSAlways {
			return Permanent(errors.New(`the server does not offer STARTTLS and starttls = "always"`))
		}
		return nil
	}
	return cl.StartTLS(c.tlsConfig())
}

// message is the mail of one event: RFC 5322 headers, then the text
// quoted-printable. Message-ID is the event's: a retry after a lost reply
// is the same mail to a receiver that removes duplicates.
func (c *smtpChannel) message(e *Event) []byte {
	var b bytes.Buffer
	h := func(k, v string) { fmt.Fprintf(&b, "%s: %s\r\n", k, v) }
	h("From", c.keys.From)
	h("To", strings.Join(c.keys.To, ", "))
	h("Subject", mime.QEncoding.Encode("utf-8", e.Title()))
	h("Date", e.Time.Format(time.RFC1123Z))
	h("Message-ID", "<"+e.ID+"@svc-ctl.invalid>")
	h("Auto-Submitted", "auto-generated") // RFC 3834: no vacation replies
	h("X-Svcctl-Event", e.Kind)
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	w := quotedprintable.NewWriter(&b)
	_, _ = w.Write([]byte(strings.ReplaceAll(messageBody(e), "\n", "\r\n") + "\r\n"))
	_ = w.Close()
	return b.Bytes()
}

// address is the bare address of "Name <a@b>" (checked at load).
func address(s string) string {
	if a, err := mail.ParseAddress(s); err == nil {
		return a.Address
	}
	return s
}

func helloName() string {
	if h, err := os.Hostname(); err == nil && h != "" && !strings.ContainsAny(h, " \r\n") {
		return h
	}
	return "localhost"
}
