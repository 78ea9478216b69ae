//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIncludeTrust: the trust rule covers each included file and each
// directory an include globs in, even one where the glob matched nothing
// yet (a file dropped there later is read as config), sticky bit or not.
func TestIncludeTrust(t *testing.T) {
	dir, file := secureConfig(t)
	if err := os.WriteFile(file, []byte("include = [\"conf.d/*.toml\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	confd := filepath.Join(dir, "conf.d")
	if err := os.Mkdir(confd, 0o755); err != nil {
		t.Fatal(err)
	}
	load := func() error {
		cfg, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.CheckTrusted()
	}
	if err := load(); err != nil {
		t.Fatalf("secure set refused: %v", err)
	}
	os.Chmod(confd, 0o1777)
	if err := load(); !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "include directory "+confd) ||
		!strings.Contains(err.Error(), "can add a file the agent reads as config") {
		t.Fatalf("writable include dir: %v", err)
	}
	os.Chmod(confd, 0o755)
	inc := filepath.Join(confd, "a.toml")
	os.WriteFile(inc, nil, 0o666)
	os.Chmod(inc, 0o666)
	if err := load(); !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "included file "+inc) {
		t.Fatalf("writable included file: %v", err)
	}
}
