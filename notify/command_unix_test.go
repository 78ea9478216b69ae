//go:build unix

package notify

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/config"
)

// A command channel with `user` runs as that user, as a service with `user`
// does (docs/notifications.md, "command"): here /usr/bin/touch run
// for the channel makes a file, and the file's owner is the user named.
func TestCommandChannelRunsAsItsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a command as another user needs root (CI runs as root)")
	}
	touch := "/usr/bin/touch"
	if _, err := os.Stat(touch); err != nil {
		t.Skip("no /usr/bin/touch")
	}
	nobody, err := user.Lookup("nobody")
	if err != nil {
		t.Skip("no user nobody")
	}
	dir, err := os.MkdirTemp("", "svcctl-notify-runas-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o777); err != nil { // the command, as nobody, writes here
		t.Fatal(err)
	}
	made := filepath.Join(dir, "made-by-the-channel")
	n := config.Notify{Name: "script", Kind: config.NotifyCommand, Command: []string{touch, made},
		RunAs: config.RunAs{User: "nobody"}, Timeout: 5 * time.Second}
	ch, err := Open(&n)
	if err != nil {
		t.Fatal(err)
	}
	if err := ch.Send(ctxb, sample(KindServiceDown)); err != nil {
		t.Fatalf("Send: %v", err)
	}
	fi, err := os.Stat(made)
	if err != nil {
		t.Fatalf("the command did not run: %v", err)
	}
	want, _ := strconv.Atoi(nobody.Uid)
	if got := fi.Sys().(*syscall.Stat_t).Uid; int(got) != want {
		t.Fatalf("the command ran as uid %d, want nobody (%d)", got, want)
	}
}

// A user that is gone by the time an event is delivered (config checked it
// at load) is an error for the sender to retry, never a run as root.
func TestCommandChannelUserGone(t *testing.T) {
	out := filepath.Join(t.TempDir(), "events")
	n := config.Notify{Name: "script", Kind: config.NotifyCommand, Command: childCommand(out, "0", ""),
		RunAs: config.RunAs{User: "svcctl-no-such-user-x9"}, Timeout: 5 * time.Second}
	ch, err := Open(&n)
	if err != nil {
		t.Fatal(err)
	}
	err = ch.Send(ctxb, sample(KindServiceDown))
	if err == nil || !strings.Contains(err.Error(), "run as svcctl-no-such-user-x9") {
		t.Fatalf("Send with a user that does not exist: %v", err)
	}
	if _, statErr := os.Stat(out); statErr == nil {
		t.Fatal("the command ran although its user does not exist")
	}
}
