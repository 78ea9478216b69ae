package probe

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "stamp")
	if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	r := run(Spec{Kind: KindFile, Target: path, MaxAge: time.Hour})
	wantHealthy(t, r)
	if r.Detail["size"] != int64(1) {
		t.Fatalf("detail size = %v, want 1", r.Detail["size"])
	}
	wantHealthy(t, run(Spec{Kind: KindFile, Target: dir})) // a directory exists too

	old := time.Now().Add(-3 * time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	r = run(Spec{Kind: KindFile, Target: path, MaxAge: time.Hour})
	wantUnhealthy(t, r, "file is 3h old, want at most 1h")
	if r.Detail["mtime"] != old.UTC().Format(time.RFC3339) {
		t.Fatalf("detail mtime = %v, want %s", r.Detail["mtime"], old.UTC().Format(time.RFC3339))
	}
	wantHealthy(t, run(Spec{Kind: KindFile, Target: path})) // no MaxAge: any age

	wantUnhealthy(t, run(Spec{Kind: KindFile, Target: filepath.Join(dir, "missing")}), "file does not exist")
	wantUnhealthy(t, run(Spec{Kind: KindFile}), "no path to check")
}
