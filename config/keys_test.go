package config

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
)

// secretFixture sets every secret key raw.go declares, each to a value
// with a marker of its own (the key's path): TestSecretKeysNeverPrinted
// fails until a new secret key is given a line here.
const secretFixture = `
[agent]
ping = "https://hc.example/SECRET-agent.ping"

[[service]]
name = "web"
command = ["/bin/true"]
env = { TOKEN = "SECRET-service.env" }
ping = "https://hc.example/SECRET-service.ping"
[service.health]
tcp = "127.0.0.1:1"

[[job]]
name = "pull"
schedule = "@daily"
timezone = "UTC"
command = ["/bin/true"]
env = { TOKEN = "SECRET-job.env" }
ping = "https://hc.example/SECRET-job.ping"

[[notify]]
name = "hook"
kind = "webhook"
url = "https://hooks.example/SECRET-notify.url"
secret = "SECRET-notify.secret"

[[notify]]
name = "phone"
kind = "ntfy"
url = "https://ntfy.example/topic"
token = "SECRET-notify.token"

[[notify]]
name = "fleet"
kind = "otlp"
url = "https://otlp.example"
headers = { Authorization = "SECRET-notify.headers" }
`

// TestSecretKeysNeverPrinted: for every key raw.go tags secret, a value
// written there is in SecretValues (what every redactor of the agent's
// output hides) and nowhere in the printed view, JSON or TOML.
func TestSecretKeysNeverPrinted(t *testing.T) {
	cfg, err := Parse([]byte(secretFixture), "secrets.toml")
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	tm, err := toml.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	secrets := strings.Join(cfg.SecretValues(), "\n")
	n := 0
	for _, k := range schemaKeys() {
		if !k.secret {
			continue
		}
		n++
		marker := "SECRET-" + k.path()
		if !strings.Contains(secretFixture, marker) {
			t.Errorf("%s is a secret key: give it a value holding %q in secretFixture", k.path(), marker)
			continue
		}
		if !strings.Contains(secrets, marker) {
			t.Errorf("%s's value is not in SecretValues: a redactor built from them would print it", k.path())
		}
		if strings.Contains(string(js), marker) || strings.Contains(string(tm), marker) {
			t.Errorf("%s's value is printed by Redacted", k.path())
		}
	}
	if n < 5 {
		t.Errorf("only %d secret keys in raw.go", n)
	}
}

// TestKindTablesFromSchema: each kind's keys come from raw.go's kinds
// tags, and a key's kinds name only kinds its table's kind key accepts.
func TestKindTablesFromSchema(t *testing.T) {
	if got := keysOfKinds(typeRawDepend)["cert"]; !slices.Equal(got, []string{"url", "path", "min_valid"}) {
		t.Errorf("cert takes %v", got)
	}
	if got := DependKinds; !slices.Equal(got, []string{"http", "tcp", "dns", "file", "cert"}) {
		t.Errorf("DependKinds %v", got)
	}
	if got := HealthChecks; !slices.Equal(got, []string{"tcp", "http", "exec"}) {
		t.Errorf("HealthChecks %v", got)
	}
	notifyKinds := keysOfKinds(typeRawNotify)
	if slices.Contains(notifyKinds[NotifyOTLP], "min_interval") || !slices.Contains(notifyKinds[NotifyWebhook], "min_interval") {
		t.Errorf("min_interval is every kind's but otlp's: %v", notifyKinds)
	}
	for _, k := range schemaKeys() {
		if k.doc == "" {
			t.Errorf("%s has no doc line in raw.go", k.path())
		}
	}
}

// TestViewShowsEveryKey: the printed view, derived from the schema
// (view.go), has a key for every key of the schema under the same name, for
// every kind that takes it: what `config check` prints can be read against
// the file. Building each view also finds a key with no typed field to
// print it from (a panic).
func TestViewShowsEveryKey(t *testing.T) {
	tables := map[string][2]reflect.Type{
		"agent":           {typeRawAgent, reflect.TypeFor[Agent]()},
		"service":         {typeRawService, reflect.TypeFor[Service]()},
		"service.health":  {typeRawHealth, reflect.TypeFor[Health]()},
		"service.restart": {typeRawRestart, reflect.TypeFor[Restart]()},
		"service.limits":  {typeRawLimits, reflect.TypeFor[Limits]()},
		"service.depends": {typeRawDepend, reflect.TypeFor[Depend]()},
		"job":             {typeRawJob, reflect.TypeFor[Job]()},
		"job.depends":     {typeRawDepend, reflect.TypeFor[Depend]()},
		"notify":          {typeRawNotify, reflect.TypeFor[Notify]()},
	}
	for _, k := range schemaKeys() {
		if k.table == "" {
			continue // include: printed as comments (View.Include)
		}
		tt, ok := tables[k.table]
		if !ok {
			t.Errorf("no typed struct for table [%s]: add it here", k.table)
			continue
		}
		kinds := []string{""}
		if tt[0] == typeRawNotify || tt[0] == typeRawDepend {
			kinds = kindNames(tt[0])
		}
		for _, kind := range kinds {
			if kind != "" && !takes(tt[0], kind, k.name) {
				continue
			}
			v := viewOf(tt[0], tt[1], kind)
			if !slices.ContainsFunc(v.keys, func(vk viewKey) bool { return vk.name == k.name }) {
				t.Errorf("%s: the view of [%s] kind %q has no %s", k.path(), k.table, kind, k.name)
			}
			if tag := v.typ.Field(slices.IndexFunc(v.keys, func(vk viewKey) bool { return vk.name == k.name })).Tag; !strings.HasPrefix(tag.Get("toml"), k.name) {
				t.Errorf("%s: printed as %q", k.path(), tag)
			}
		}
	}
}
