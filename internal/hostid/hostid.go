// Package hostid names this machine for a fleet: the OS's own machine id
// (Linux /etc/machine-id, macOS the hardware UUID, Windows MachineGuid),
// else an id made once and kept in a file of the caller's (the state dir).
// It must never return an id that differs between two machines' identical
// OS installs (macOS kern.uuid names the kernel build, not the machine) or
// one that changes at every start.
package hostid

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"svcctl/internal/fsutil"
)

// Sources of an id, as Get reports them.
const (
	SourceOS       = "os"       // the OS's machine id
	SourceFallback = "fallback" // made by svc-ctl and kept in the fallback file
)

// osID reads the OS's machine id; a package variable so tests can take the
// fallback path on any host.
var osID = machineID

// Get returns this machine's id and its source. Without an OS id it reads
// fallback (a file svc-ctl keeps), creating it once with a random UUID
// when create is set (the agent); else a missing file is an empty id.
func Get(fallback string, create bool) (id, source string, err error) {
	if id, err := osID(); err == nil && id != "" {
		return id, SourceOS, nil
	}
	if !create {
		id, err = Read(fallback)
		return id, SourceFallback, err
	}
	id, err = Persisted(fallback)
	return id, SourceFallback, err
}

// Read returns the UUID kept in path, "" when there is none (yet).
func Read(path string) (string, error) {
	b, err := fsutil.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if id := strings.TrimSpace(string(b)); uuidLike.MatchString(id) {
		return id, nil
	}
	return "", nil
}

var uuidLike = regexp.MustCompile(`^[0-9a-fA-F-]{32,36}$`)

// Persisted returns the UUID kept in path, creating the file (0600, no
// link followed) with a new random UUID when it is missing or does not
// hold one (a crash between create and write leaves it empty). The file
// is replaced whole (a rename), so a reader never sees half an id; the
// agent makes it at its start, under the agent lock.
func Persisted(path string) (string, error) {
	if b, err := fsutil.ReadFile(path); err == nil {
		if id := strings.TrimSpace(string(b)); uuidLike.MatchString(id) {
			return id, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	id := uuid.NewString()
	if err := fsutil.WriteFileAtomic(path, []byte(id+"\n"), fsutil.FilePerm); err != nil {
		return "", err
	}
	b, err := fsutil.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), nil
}
