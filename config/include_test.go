package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes name -> content under dir and returns dir.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const incMain = `include = ["conf.d/*.toml"]
[agent]
state_dir = "state"
[[service]]
name = "proxy"
command = ["/bin/proxy"]
health.tcp = "127.0.0.1:8789"
`

// TestIncludeReadsInLexicalOrder: included files add their tables after
// the main file's, in lexical order; relative paths resolve against the
// file that holds them; each table knows its file; the digest covers the
// set and changes when an included file does.
func TestIncludeReadsInLexicalOrder(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"svc-ctl.toml": incMain,
		"conf.d/20-b.toml": `[[job]]
name = "pull"
schedule = "@daily"
timezone = "UTC"
command = ["bin/pull"]
`,
		"conf.d/10-a.toml": `[[service]]
name = "sync"
command = ["/bin/sync"]
dir = "work"
health.tcp = "127.0.0.1:9000"
`,
		"conf.d/notes.txt": "not toml",
	})
	main := filepath.Join(dir, "svc-ctl.toml")
	cfg, err := Load(main)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Services) != 2 || cfg.Services[0].Name != "proxy" || cfg.Services[1].Name != "sync" || len(cfg.Jobs) != 1 {
		t.Fatalf("services %v jobs %v", cfg.Services, cfg.Jobs)
	}
	if got := cfg.Services[1].Dir; got != filepath.Join(dir, "conf.d", "work") {
		t.Errorf("dir of an included service = %s, want it against its own file's directory", got)
	}
	if got := cfg.Jobs[0].Command[0]; got != "bin/pull" {
		t.Errorf("command = %s (argv stays as written)", got)
	}
	if cfg.Source("service", "sync") != filepath.Join(dir, "conf.d", "10-a.toml") || cfg.Source("service", "proxy") != main {
		t.Errorf("sources: sync %s, proxy %s", cfg.Source("service", "sync"), cfg.Source("service", "proxy"))
	}
	if len(cfg.Includes) != 1 || len(cfg.Includes[0].Files) != 2 || filepath.Base(cfg.Includes[0].Files[0]) != "10-a.toml" {
		t.Fatalf("includes %+v", cfg.Includes)
	}
	before := cfg.Digest
	os.WriteFile(filepath.Join(dir, "conf.d", "20-b.toml"), []byte(strings.Replace(`[[job]]
name = "pull"
schedule = "@hourly"
timezone = "UTC"
command = ["bin/pull"]
`, "", "", 1)), 0o644)
	again, err := Load(main)
	if err != nil {
		t.Fatal(err)
	}
	if again.Digest == before {
		t.Fatal("the digest did not change with an included file")
	}
}

// TestIncludeMatchingNothing is allowed, and says so.
func TestIncludeMatchingNothing(t *testing.T) {
	dir := writeFiles(t, map[string]string{"svc-ctl.toml": incMain})
	cfg, err := Load(filepath.Join(dir, "svc-ctl.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Includes) != 1 || len(cfg.Includes[0].Files) != 0 || len(cfg.Services) != 1 {
		t.Fatalf("includes %+v", cfg.Includes)
	}
	was := *cfg
	was.Includes = []IncludeMatch{{Pattern: "conf.d/*.toml", Files: []string{"x"}}}
	if m := cfg.MissingIncludes(&was); len(m) != 1 {
		t.Fatalf("MissingIncludes = %v, want the pattern that matched before", m)
	}
}

// TestIncludeRules: each rule's error names the file and line it is about.
func TestIncludeRules(t *testing.T) {
	tests := []struct {
		name, file, body string
		main             string
		line             int
		msg              string
	}{
		{"agent in an included file", "conf.d/a.toml", "[agent]\nlog_level = \"debug\"\n", incMain, 1,
			`[agent] belongs in the main file only: an included file holds [[service]], [[job]] and [[notify]] tables`},
		{"nested include", "conf.d/a.toml", "include = [\"more/*.toml\"]\n", incMain, 1,
			`include (no nesting) belongs in the main file only: an included file holds [[service]], [[job]] and [[notify]] tables`},
		{"a name in two files", "conf.d/a.toml", "\n[[service]]\nname = \"proxy\"\ncommand = [\"/bin/p\"]\nhealth.tcp = \"127.0.0.1:1\"\n", incMain, 3,
			`duplicate name "proxy": already defined in {main}:5; give each service its own name`},
		{"an invalid key in an included file", "conf.d/a.toml", "[[job]]\nname = \"j\"\nschedule = \"@daily\"\ntimezone = \"UTC\"\ncommand = [\"/bin/j\"]\ngrce = \"1m\"\n", incMain, 6,
			`unknown key: did you mean "grace"?`},
		{"a wildcard directory", "conf.d/a.toml", "", "include = [\"*/x.toml\"]\n", 1,
			`"*/x.toml": a wildcard only in the file name, like conf.d/*.toml (each directory that can add a file is named, and checked)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"svc-ctl.toml": tt.main, tt.file: tt.body})
			main := filepath.Join(dir, "svc-ctl.toml")
			_, err := Load(main)
			errs := Errors(err)
			if len(errs) != 1 {
				t.Fatalf("got %d problems, want 1: %v", len(errs), err)
			}
			wantFile := filepath.Join(dir, tt.file)
			if strings.HasPrefix(tt.msg, `"*/`) {
				wantFile = main
			}
			msg := strings.ReplaceAll(tt.msg, "{main}", main)
			if errs[0].File != wantFile || errs[0].Line != tt.line || errs[0].Msg != msg {
				t.Fatalf("got %s:%d %q\nwant %s:%d %q", errs[0].File, errs[0].Line, errs[0].Msg, wantFile, tt.line, msg)
			}
		})
	}
}
