package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseEnvFile(t *testing.T) {
	data := "# comment\n\n  export A=1\nB = two words # comment\nC=\"q \\\"x\\\"\\n\\\\\" # c\nD='$HOME # not a comment'\r\nE=\nF=a#b\nG=\"\"\n"
	got, err := parseEnvFile([]byte(data))
	want := map[string]string{"A": "1", "B": "two words", "C": "q \"x\"\n\\", "D": "$HOME # not a comment", "E": "", "F": "a#b", "G": ""}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("parseEnvFile = %q, %v\nwant %q", got, err, want)
	}
}

// TestEnvFileErrors: every error names the line and never the value.
func TestEnvFileErrors(t *testing.T) {
	const secret = "s3cret-v4lue"
	tests := map[string]string{
		"no equals " + secret:             "line 1: want KEY=VALUE, with KEY made of letters, digits, '_' and '.', not starting with a digit (the value is not shown)",
		"1BAD=" + secret:                  "line 1: want KEY=VALUE, with KEY made of letters, digits, '_' and '.', not starting with a digit (the value is not shown)",
		"A=\"" + secret:                   `line 1: A: no closing " on this line: a value spans one line (the value is not shown)`,
		"A='" + secret:                    "line 1: A: no closing ' on this line: a value spans one line (the value is not shown)",
		"A=\"x\" " + secret:               "line 1: A: text after the closing quote: quote the whole value (the value is not shown)",
		"A=1\nA=" + secret:                "line 2: A defined twice (first at line 1): keep one",
		"A=\"\\u0000\"\nB=x\x00" + secret: "line 2: B: the value contains a NUL byte, which no OS can pass to a process",
	}
	for in, want := range tests {
		_, err := parseEnvFile([]byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("parseEnvFile(%q) = %v\nwant %s", in, err, want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("the value leaked: %v", err)
		}
	}
}

func TestReadEnvFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.env")
	if _, err := readEnvFile(missing); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "cannot read "+missing+": ") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := readEnvFile(dir); err == nil || err.Error() != dir+" is not a regular file" {
		t.Errorf("directory: %v", err)
	}
	big := filepath.Join(dir, "big.env")
	if err := os.WriteFile(big, []byte(strings.Repeat("A=1\n", maxEnvFile/4+1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := readEnvFile(big); err == nil || !strings.Contains(err.Error(), "larger than 1MiB") {
		t.Errorf("big file: %v", err)
	}
}

// TestEnvOverridesEnvFile: env in the TOML file wins over the env_file,
// and both reach Env (so every writer's redactor knows the file's values).
func TestEnvOverridesEnvFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.env"), []byte("A=from-file\nB=file-only-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "svc-ctl.toml")
	data := "[[service]]\nname = \"s\"\ncommand = [\"/bin/s\"]\nhealth.tcp = \"127.0.0.1:1\"\nenv = { A = \"from-toml\" }\nenv_file = \"s.env\"\n"
	if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if env := cfg.Services[0].Env; env["A"] != "from-toml" || env["B"] != "file-only-secret" {
		t.Errorf("Env = %v", env)
	}
	found := false
	for _, v := range cfg.EnvValues() {
		found = found || v == "file-only-secret"
	}
	if !found {
		t.Error("EnvValues misses the env_file's value")
	}
}
