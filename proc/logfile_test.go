package proc

import (
	"os"
	"path/filepath"
	"testing"
)

// A log held open by its writer can be rotated (renamed) on every OS, and the
// writer's next lines land in the renamed file: the failing instance's last
// words stay with its evidence.
func TestOpenAppendCanBeRenamedWhileOpen(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "runtime.log")
	prev := filepath.Join(dir, "runtime.prev.log")
	f, err := openAppend(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("before\n"); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(log, prev); err != nil {
		t.Fatalf("rename a log its writer holds open: %v", err)
	}
	if _, err := f.WriteString("last words\n"); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(prev); err != nil || string(b) != "before\nlast words\n" {
		t.Fatalf("renamed log = %q, %v; want both lines", b, err)
	}
	g, err := openAppend(log) // the next instance's log starts empty
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := g.WriteString("new\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(log); string(b) != "new\n" {
		t.Fatalf("new log = %q, want only the new line", b)
	}
}

func TestOpenAppendAppends(t *testing.T) {
	log := filepath.Join(t.TempDir(), "x.log")
	for _, s := range []string{"a\n", "b\n"} {
		f, err := openAppend(log)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if b, _ := os.ReadFile(log); string(b) != "a\nb\n" {
		t.Fatalf("log = %q, want a then b", b)
	}
}
