package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	toml "github.com/pelletier/go-toml/v2"
)

// TestViewGolden: what `config check` prints, JSON (as --json writes it)
// and TOML, byte for byte, for valid-full.toml and for view/input.toml
// (the keys valid-full leaves out). The view is derived from the schema
// (view.go); these files pin its output, the field set and order scripts
// read included, so a change to a tag that changes what is printed shows
// here. SVCCTL_UPDATE_GOLDEN=1 rewrites them.
func TestViewGolden(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the golden files hold paths with /; the derivation is the same on every OS")
	}
	testdata, err := filepath.Abs(filepath.Join("..", "testdata", "config"))
	if err != nil {
		t.Fatal(err)
	}
	fakeAccounts(t, false, true)
	full, err := Load(filepath.Join(testdata, "valid-full.toml"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "valid-full", full, testdata, "TESTDATA")

	fakeAccounts(t, true, true)
	dir := t.TempDir()
	for name, text := range map[string]string{"ping": "https://hc.example/ping/u-77a\n", "headers": "X-Tenant: t-3\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join(testdata, "view", "input.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(bytes.ReplaceAll(src, []byte("FILE"), []byte(dir)), filepath.Join(dir, "svc-ctl.toml"))
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "fixture", cfg, dir, "FILE")
}

func checkGolden(t *testing.T, name string, cfg *Config, dir, placeholder string) {
	t.Helper()
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(cfg.Redacted()); err != nil {
		t.Fatal(err)
	}
	tm, err := toml.Marshal(cfg.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	for ext, out := range map[string]string{".json": js.String(), ".toml": string(tm)} {
		got := strings.ReplaceAll(out, dir, placeholder)
		file := filepath.Join("..", "testdata", "config", "view", name+ext)
		if os.Getenv("SVCCTL_UPDATE_GOLDEN") == "1" {
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("config check prints for %s%s:\n%s\nwant (%s):\n%s", name, ext, got, file, want)
		}
	}
}

// TestTypedMatchesSchema: types.go is written by hand (docs/design/config.md
// says why) and held to the schema here: every key of every table, and of
// every kind that takes it, has a typed field (the one the printed view
// reads), of the type its raw type parses to: a duration a time.Duration, a
// size an int64 of bytes, a percent a float64, a defaulted pointer its
// value; the rest as declared.
func TestTypedMatchesSchema(t *testing.T) {
	want := func(k viewKey) reflect.Type {
		switch r := deref(k.raw); {
		case r == typeDurationText:
			return reflect.TypeFor[time.Duration]()
		case r == typeSizeText:
			return reflect.TypeFor[int64]()
		case k.view == "percent":
			return reflect.TypeFor[float64]()
		default:
			return r
		}
	}
	var check func(name string, v *viewTable, typed reflect.Type)
	check = func(name string, v *viewTable, typed reflect.Type) {
		for _, k := range v.keys {
			if k.ext || k.table != nil || k.list != nil {
				continue // a kind's own keys are their typed view; tables are checked below
			}
			if got := typed.FieldByIndex(k.typed).Type; got != want(k) {
				t.Errorf("%s.%s: typed as %s, want %s", name, k.name, got, want(k))
			}
		}
	}
	for _, tt := range []struct {
		name       string
		raw, typed reflect.Type
	}{
		{"agent", typeRawAgent, reflect.TypeFor[Agent]()}, {"service", typeRawService, reflect.TypeFor[Service]()},
		{"service.health", typeRawHealth, reflect.TypeFor[Health]()}, {"service.restart", typeRawRestart, reflect.TypeFor[Restart]()},
		{"service.limits", typeRawLimits, reflect.TypeFor[Limits]()}, {"job", typeRawJob, reflect.TypeFor[Job]()},
	} {
		check(tt.name, viewOf(tt.raw, tt.typed, ""), tt.typed)
	}
	for _, kind := range kindNames(typeRawDepend) {
		check("depends kind "+kind, viewOf(typeRawDepend, reflect.TypeFor[Depend](), kind), reflect.TypeFor[Depend]())
	}
	for _, kind := range kindNames(typeRawNotify) {
		check("notify kind "+kind, viewOf(typeRawNotify, reflect.TypeFor[Notify](), kind), reflect.TypeFor[Notify]())
	}
}
