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
	if got := keysOfKinds(typeRawDepend)["cert"]; !slices.Equal(got, []string{"path", "url", "min_valid"}) {
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

// TestViewShowsEveryKey: the printed view (redact.go) has a key for every
// key of the schema, table by table, under the same name: what `config
// check` prints can be read against the file, and a key added to raw.go
// and not to its view fails here.
func TestViewShowsEveryKey(t *testing.T) {
	views := map[string]reflect.Type{
		"agent": reflect.TypeFor[AgentView](), "service": reflect.TypeFor[ServiceView](),
		"service.health": reflect.TypeFor[HealthView](), "service.restart": reflect.TypeFor[RestartView](),
		"service.limits": reflect.TypeFor[LimitsView](), "service.depends": reflect.TypeFor[DependView](),
		"job": reflect.TypeFor[JobView](), "job.depends": reflect.TypeFor[DependView](),
		"notify": reflect.TypeFor[NotifyView](),
	}
	for _, k := range schemaKeys() {
		if k.table == "" {
			continue // include: printed as comments (View.Include)
		}
		v, ok := views[k.table]
		if !ok {
			t.Errorf("no view type for table [%s]: add it to redact.go and here", k.table)
			continue
		}
		if !slices.Contains(viewKeys(v), k.name) && !inRegisteredView(k) {
			t.Errorf("%s: %s has no field with toml:%q: add it to the printed view (redact.go)", k.path(), v.Name(), k.name)
		}
	}
}

// inRegisteredView: a key of kinds registered by their own files is in
// each of those kinds' views (extViewType).
func inRegisteredView(k key) bool {
	found := false
	for _, e := range extKinds {
		if slices.Contains(k.kinds, e.name) {
			if !slices.Contains(viewKeys(e.view), k.name) {
				return false
			}
			found = true
		}
	}
	return found
}

// viewKeys are the toml names of a view's fields, embedded views' included.
func viewKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, viewKeys(deref(f.Type))...)
			continue
		}
		out = append(out, tomlName(f))
	}
	return out
}
