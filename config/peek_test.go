package config

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestPeekStateDir: the state dir of a file that does not load is still
// read: from a file broken anywhere, relative to the file, and only from
// [agent]; a file that names none gives the default.
func TestPeekStateDir(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "abs", "state")
	q := strconv.Quote(abs)
	for _, c := range []struct {
		name, body, want string
		fromFile         bool
	}{
		{"valid", "[agent]\nstate_dir = " + q + "\n", abs, true},
		{"broken elsewhere", "[agent]\nstate_dir = '" + abs + "' # here\n[[service]]\nname = \"half\nwritten\n", abs, true},
		{"relative", "[agent]\nstate_dir = \"st\"\n[[service\n", filepath.Join(dir, "st"), true},
		{"not in agent", "[[service]]\nstate_dir = \"/nope\"\n[oops\n", DefaultStateDir(UserMode()), false},
		{"none", "garbage [[[\n", DefaultStateDir(UserMode()), false},
	} {
		path := filepath.Join(dir, "c.toml")
		os.WriteFile(path, []byte(c.body), 0o600)
		got, from := PeekStateDir(path)
		if got != filepath.Clean(c.want) || from != c.fromFile {
			t.Errorf("%s: %q (from file %v), want %q (%v)", c.name, got, from, c.want, c.fromFile)
		}
	}
}
