package notify

import (
	"bufio"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml/v2"

	"svcctl/config"
	"svcctl/runtrace"
)

// mailServer is a small real SMTP server on 127.0.0.1: EHLO, STARTTLS
// (when it has a certificate and is not implicit TLS), AUTH PLAIN against
// one login, MAIL, RCPT, DATA, QUIT. What it received is kept per mail.
type mailServer struct {
	addr     string
	user     string
	pass     string
	starttls bool // offers STARTTLS
	mu       sync.Mutex
	mails    []gotMail
}

type gotMail struct {
	tls      bool   // the DATA came over TLS
	login    string // who logged in; "" = nobody
	from     string
	to       []string
	data     []byte
	authSeen []string // each AUTH's decoded user, for refused ones too
}

// testCert is a self-signed certificate for 127.0.0.1, made once.
var testCert = sync.OnceValues(func() (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "svc-ctl test mail"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
})

// newMailServer starts a server; implicit wraps every connection in TLS
// from the first byte (smtps://). The channel trusts its certificate.
func newMailServer(t *testing.T, implicit, starttls bool) *mailServer {
	t.Helper()
	cert, pool := testCert()
	old := smtpRoots
	smtpRoots = pool
	t.Cleanup(func() { smtpRoots = old })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conf := &tls.Config{Certificates: []tls.Certificate{cert}}
	if implicit {
		l = tls.NewListener(l, conf)
	}
	ms := &mailServer{addr: l.Addr().String(), user: "alerts", pass: "pw-Zq81-secret", starttls: starttls}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { ms.serve(c, conf, implicit) })
		}
	})
	return ms
}

func (ms *mailServer) serve(c net.Conn, conf *tls.Config, implicit bool) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	say := func(s string) { w.WriteString(s + "\r\n"); w.Flush() }
	m := gotMail{tls: implicit}
	say("220 127.0.0.1 ESMTP test")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			ext := []string{"250-127.0.0.1", "250-8BITMIME"}
			if ms.starttls && !m.tls {
				ext = append(ext, "250-STARTTLS")
			}
			say(strings.Join(append(ext, "250 AUTH PLAIN"), "\r\n"))
		case "STARTTLS":
			say("220 go ahead")
			tc := tls.Server(c, conf)
			if tc.Handshake() != nil {
				return
			}
			c, m.tls = tc, true
			r, w = bufio.NewReader(tc), bufio.NewWriter(tc)
		case "AUTH":
			b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(arg, "PLAIN "))
			parts := strings.Split(string(b), "\x00")
			m.authSeen = append(m.authSeen, parts[1])
			if len(parts) == 3 && parts[1] == ms.user && parts[2] == ms.pass {
				m.login = parts[1]
				say("235 2.7.0 accepted")
			} else {
				say("535 5.7.8 authentication credentials invalid")
			}
		case "MAIL":
			m.from = arg
			say("250 ok")
		case "RCPT":
			m.to = append(m.to, arg)
			say("250 ok")
		case "DATA":
			say("354 end with .")
			var data bytes.Buffer
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" {
					break
				}
				data.WriteString(strings.TrimPrefix(l, "."))
			}
			m.data = data.Bytes()
			ms.mu.Lock()
			ms.mails = append(ms.mails, m)
			ms.mu.Unlock()
			say("250 queued")
		case "QUIT":
			say("221 bye")
			return
		default:
			say("250 ok")
		}
	}
}

func (ms *mailServer) got() []gotMail {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return append([]gotMail(nil), ms.mails...)
}

// smtpConfig loads a config with one smtp channel, as the agent would:
// through config.Parse, the password in a password_file.
func smtpConfig(t *testing.T, url, extra string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	pw := filepath.Join(dir, "smtp-password")
	if err := os.WriteFile(pw, []byte("pw-Zq81-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	src := fmt.Sprintf(`[agent]
state_dir = %q

[[notify]]
name = "mail"
kind = "smtp"
url = %q
from = "svc-ctl <svc-ctl@ws-07.example>"
to = ["ops@example.org", "Oncall <oncall@example.org>"]
timeout = "5s"
%s
`, filepath.Join(dir, "state"), url, extra)
	src = strings.ReplaceAll(src, "PASSWORD_FILE", pw)
	cfg, err := config.Parse([]byte(src), filepath.Join(dir, "svc-ctl.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

const smtpLogin = "username = \"alerts\"\npassword_file = 'PASSWORD_FILE'\n"

// TestSMTPMail: an event mailed over STARTTLS, logged in with AUTH PLAIN:
// one mail to every recipient, the headers and the text an ntfy channel
// sends (title as the Subject), over TLS; the same over smtps://; without
// TLS when starttls = "never".
func TestSMTPMail(t *testing.T) {
	cases := []struct {
		name            string
		implicit, offer bool
		scheme, extra   string
		wantTLS         bool
		wantLogin       string
	}{
		{"starttls", false, true, "smtp", smtpLogin, true, "alerts"},
		{"smtps", true, false, "smtps", smtpLogin, true, "alerts"},
		{"never", false, true, "smtp", `starttls = "never"`, false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ms := newMailServer(t, tc.implicit, tc.offer)
			cfg := smtpConfig(t, tc.scheme+"://"+ms.addr, tc.extra)
			ch, err := Open(&cfg.Notify[0])
			if err != nil {
				t.Fatal(err)
			}
			e := sample(KindServiceDown)
			if err := ch.Send(ctxb, e); err != nil {
				t.Fatal(err)
			}
			mails := ms.got()
			if len(mails) != 1 {
				t.Fatalf("%d mails, want 1", len(mails))
			}
			m := mails[0]
			if m.tls != tc.wantTLS || m.login != tc.wantLogin || !strings.HasPrefix(m.from, "FROM:<svc-ctl@ws-07.example>") ||
				strings.Join(m.to, " ") != "TO:<ops@example.org> TO:<oncall@example.org>" {
				t.Errorf("tls %v login %q from %q to %q", m.tls, m.login, m.from, m.to)
			}
			checkMail(t, m.data, e)
		})
	}
}

// checkMail parses a received mail and checks its headers and body.
func checkMail(t *testing.T, data []byte, e *Event) {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("mail %q: %v", data, err)
	}
	h := msg.Header
	subject, _ := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if subject != e.Title() || h.Get("From") != "svc-ctl <svc-ctl@ws-07.example>" ||
		h.Get("To") != "ops@example.org, Oncall <oncall@example.org>" || h.Get("Message-ID") != "<"+e.ID+"@svc-ctl.invalid>" ||
		h.Get("X-Svcctl-Event") != e.Kind || h.Get("Auto-Submitted") != "auto-generated" {
		t.Errorf("headers %v (subject %q)", h, subject)
	}
	if d, err := h.Date(); err != nil || !d.Equal(e.Time.Truncate(time.Second)) {
		t.Errorf("Date %q: %v", h.Get("Date"), err)
	}
	body, _ := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if want := strings.ReplaceAll(messageBody(e), "\n", "\r\n") + "\r\n"; string(body) != want {
		t.Errorf("body %q, want %q", body, want)
	}
}

// TestSMTPFailuresRecorded: through the outbox and the sender, a refused
// login fails the delivery for good (like an HTTP 401) and a server that
// is down leaves it pending for a retry, each with its reason; neither the
// recorded errors nor the log hold the password.
func TestSMTPFailuresRecorded(t *testing.T) {
	ms := newMailServer(t, false, true)
	ms.pass = "another-password"
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := down.Addr().String()
	down.Close()
	for _, tc := range []struct {
		name, addr, state, reason string
	}{
		{"refused login", ms.addr, runtrace.DeliveryFailed, "login as alerts refused: 535"},
		{"server down", downAddr, runtrace.DeliveryPending, "dial tcp " + downAddr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := smtpConfig(t, "smtp://"+tc.addr, smtpLogin)
			cfg.Jobs = cfgWith().Jobs
			var logs bytes.Buffer
			s := newStore(t)
			d := NewDeriver(cfg, "ws-07", time.UTC)
			snd := NewSender(cfg, s, Options{Owner: "a", Now: newClock().Now, Log: slog.New(slog.NewJSONHandler(&logs, nil))})
			failRun(t, s, d, "proxy", t0)
			snd.Drain(ctxb)
			ds, _ := s.Deliveries(ctxb, 10)
			if len(ds) != 1 || ds[0].State != tc.state || ds[0].Attempts != 1 || !strings.Contains(ds[0].LastError, tc.reason) {
				t.Fatalf("deliveries %+v, want one %s with %q", ds, tc.state, tc.reason)
			}
			if strings.Contains(ds[0].LastError+logs.String(), "pw-Zq81-secret") {
				t.Errorf("the password is in the record or the log: %s %s", ds[0].LastError, logs.String())
			}
		})
	}
	if got := ms.got(); len(got) != 0 {
		t.Errorf("a mail went through a refused login: %+v", got)
	}
}

// TestSMTPPasswordNeverPrinted: the password read from password_file is a
// secret of the config (SecretValues: every redactor hides it), its file a
// secret file (trust-checked), and `config check`'s view, JSON and TOML,
// shows every smtp key but never the password.
func TestSMTPPasswordNeverPrinted(t *testing.T) {
	cfg := smtpConfig(t, "smtp://127.0.0.1:2525", smtpLogin)
	k := cfg.Notify[0].Keys.(*smtpKeys)
	if k.Password != "pw-Zq81-secret" || k.StartTLS != "auto" || !filepath.IsAbs(k.PasswordFile) {
		t.Fatalf("keys %+v", k)
	}
	if !strings.Contains(strings.Join(cfg.SecretValues(), "\n"), "pw-Zq81-secret") {
		t.Errorf("SecretValues misses the password")
	}
	if files := cfg.SecretFiles(); len(files) != 1 || files[0] != k.PasswordFile {
		t.Errorf("SecretFiles %v, want the password_file", files)
	}
	js, err := json.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	tm, err := toml.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{string(js), string(tm)} {
		if strings.Contains(out, "pw-Zq81-secret") {
			t.Errorf("the password is printed: %s", out)
		}
		for _, key := range []string{"from", "to", "username", "password_file", "starttls", "url", "min_interval"} {
			if !strings.Contains(out, key) {
				t.Errorf("the view has no %s: %s", key, out)
			}
		}
	}
	// The printed TOML loads again: one of password and password_file.
	if _, err := config.Parse(tm, filepath.Join(t.TempDir(), "again.toml")); err != nil {
		t.Errorf("the printed view does not load: %v\n%s", err, tm)
	}
}

// TestSMTPConfigErrors: each rule of the kind's keys, reported as every
// config error is, with the file, the line and what to write instead.
func TestSMTPConfigErrors(t *testing.T) {
	head := "[[notify]]\nname = \"mail\"\nkind = \"smtp\"\n"
	pw := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(pw, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := "url = \"smtp://mail.example.org:587\"\nfrom = \"a@example.org\"\nto = [\"b@example.org\"]\n"
	for _, tc := range []struct{ body, want string }{
		{`url = "https://mail.example.org"` + "\nfrom = \"a@example.org\"\nto = [\"b@example.org\"]\n",
			`mail.toml:4: notify "mail": url: invalid URL: use smtp://HOST:PORT`},
		{`url = "smtp://u:p@mail.example.org:587"` + "\nfrom = \"a@example.org\"\nto = [\"b@example.org\"]\n",
			`mail.toml:4: notify "mail": url: invalid URL: write only smtp://HOST:PORT; the login goes in username and password_file`},
		{"url = \"smtp://mail.example.org:587\"\nfrom = \"a@example.org\"\n", `mail.toml:1: notify "mail": to: kind "smtp" needs recipients`},
		{ok + "username = \"svc\"\n", `mail.toml:7: notify "mail": username: username and password_file go together`},
		{ok + "username = \"svc\"\npassword_file = '" + pw + "'\nstarttls = \"never\"\n",
			`mail.toml:9: notify "mail": starttls: starttls = "never" would send the password unencrypted`},
		{ok + "starttls = \"sometimes\"\n", `mail.toml:7: notify "mail": starttls: unknown value "sometimes": use auto, always or never`},
		{ok + "token = \"x\"\n", `mail.toml:7: notify "mail": token: not used by kind "smtp"`},
		{ok + "too = [\"c@example.org\"]\n", `mail.toml:7: notify "mail": too: unknown key: did you mean "to"?`},
		{ok + "to_file = 3\n", `mail.toml:7: notify "mail": to_file: unknown key`},
	} {
		_, err := config.Parse([]byte(head+tc.body), filepath.Join(filepath.Dir(pw), "mail.toml"))
		errs := config.Errors(err)
		if len(errs) != 1 || !strings.HasPrefix(strings.TrimPrefix(errs[0].Error(), filepath.Dir(pw)+string(filepath.Separator)), tc.want) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
}
