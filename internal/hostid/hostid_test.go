package hostid

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"svcctl/internal/testkit"
)

// TestOSIDWhereThereIsOne: on a machine with an OS id (every CI runner of
// this project has one) Get returns it, and the same one twice.
func TestOSIDWhereThereIsOne(t *testing.T) {
	id, err := machineID()
	if err != nil {
		t.Skipf("no OS machine id here: %v", err)
	}
	got, src, err := Get(filepath.Join(t.TempDir(), "host-id"), true)
	if err != nil || got != id || src != SourceOS {
		t.Fatalf("Get = %q %q %v, want %q from the OS", got, src, err, id)
	}
}

// TestFallbackPersists: without an OS id, the id is made once, kept, and
// read back the same by every later call, also by racing ones; an empty
// file (a crash between create and write) is replaced.
func TestFallbackPersists(t *testing.T) {
	testkit.Replace(t, &osID, func() (string, error) { return "", errors.New("none") })
	path := filepath.Join(t.TempDir(), "host-id")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if id, _, err := Get(path, false); err != nil || id != "" {
		t.Fatalf("Get without create on an empty file = %q, %v; want none", id, err)
	}
	first, src, err := Get(path, true)
	if err != nil || src != SourceFallback || !uuidLike.MatchString(first) {
		t.Fatalf("Get = %q %q %v", first, src, err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if id, _, err := Get(path, true); err != nil || id != first {
				t.Errorf("Get again = %q, %v; want %q", id, err, first)
			}
		})
	}
	wg.Wait()
}
