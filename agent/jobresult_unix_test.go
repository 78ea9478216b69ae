//go:build unix

package agent

import (
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestResultFileRefusesLinkAndFIFO: the file a job leaves as its result is
// read only if it is a regular file: a link (to a file the job's user could
// not read) or a FIFO (which would hang the agent) is an unreadable result,
// recorded as such.
func TestResultFileRefusesLinkAndFIFO(t *testing.T) {
	secret := t.TempDir() + "/secret"
	os.WriteFile(secret, []byte("skipped stolen: the first line of a file the job could not read\n"), 0o600)
	for name, plant := range map[string]func(path string) error{
		"link": func(path string) error { return os.Symlink(secret, path) },
		"fifo": func(path string) error { return syscall.Mkfifo(path, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			rf, err := newResultFile(nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := plant(rf.path); err != nil {
				t.Fatal(err)
			}
			line, err := rf.read()
			if err == nil || strings.Contains(line, "stolen") {
				t.Fatalf("read %q, %v: want an error", line, err)
			}
			if _, err := os.Stat(rf.dir); !os.IsNotExist(err) {
				t.Fatalf("result dir left behind: %v", err)
			}
		})
	}
}
