package rebootdrill

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianMirror runs lib.sh's debian_mirror on an apt directory laid out by
// files (name -> content) and returns its stdout, stderr and exit code.
func debianMirror(t *testing.T, files map[string]string) (string, string, int) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	apt := t.TempDir()
	if err := os.MkdirAll(filepath.Join(apt, "sources.list.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(apt, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// argv only: the script's path and the directory are arguments, not code
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", `source "$1"; debian_mirror "$2"`, "lib", "./lib.sh", apt)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(stdout.String()), stderr.String(), code
}

func TestDebianMirror(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"deb822: the bookworm main stanza, not security, not a disabled one", map[string]string{
			"sources.list.d/debian.sources": `Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main

Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no

# a comment
Types: deb deb-src
URIs: http://mirror.example/debian/ http://other.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
`,
			"sources.list.d/old.list.disabled": "deb http://ignored.example/debian bookworm main\n",
		}, "http://mirror.example/debian"},
		{"one-line with options", map[string]string{
			"sources.list": `# deb http://commented.example/debian bookworm main
deb-src http://src.example/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://line.example/debian bookworm contrib main
`,
		}, "http://line.example/debian"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, stderr, code := debianMirror(t, c.files)
			if code != 0 || got != c.want {
				t.Fatalf("debian_mirror = %q (exit %d, stderr %q), want %q", got, code, stderr, c.want)
			}
		})
	}
}

func TestDebianMirrorNone(t *testing.T) {
	got, stderr, code := debianMirror(t, map[string]string{
		"sources.list": "deb http://mirror.example/ubuntu jammy main\n",
	})
	if code != 2 || got != "" || !strings.Contains(stderr, "no 'deb ... bookworm main' entry in ") {
		t.Fatalf("debian_mirror = %q, exit %d, stderr %q; want exit 2 naming what to add", got, code, stderr)
	}
}
