package install

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"svcctl/config"
)

// hostInfo is what this package asks about the machine it runs on. Tests
// replace host to drive every platform's flow from one machine.
type hostInfo struct {
	target     func() Target
	userMode   func() bool // not root / not elevated
	account    func() (account, error)
	executable func() (string, error)
	// root is prepended to the paths of files the backstop writes ("/").
	root string
}

// path is p under host.root.
func (h hostInfo) path(p string) string {
	if h.root == "" || h.root == "/" {
		return p
	}
	return filepath.Join(h.root, filepath.FromSlash(p))
}

// account is the user who runs the command.
type account struct {
	home   string
	uid    int
	userID string // Windows DOMAIN\user (Task Scheduler)
}

var host = hostInfo{
	target:     CurrentTarget,
	userMode:   config.UserMode,
	account:    currentAccount,
	executable: currentExecutable,
	root:       "/",
}

func currentAccount() (account, error) {
	u, err := user.Current()
	if err != nil {
		home, herr := os.UserHomeDir()
		if herr != nil {
			return account{}, fmt.Errorf("find the current user: %w", err)
		}
		return account{home: home, uid: os.Getuid()}, nil
	}
	uid, _ := strconv.Atoi(u.Uid) // not a number on Windows: a SID
	home := u.HomeDir
	if h, err := os.UserHomeDir(); err == nil {
		home = h // $HOME wins, as it does for kardianos' systemd paths
	}
	return account{home: home, uid: uid, userID: u.Username}, nil
}

// currentExecutable is the absolute path of this svc-ctl binary, symlinks
// kept: an upgrade that replaces the file behind a stable path (a package
// manager's symlink) must not need a reinstall.
func currentExecutable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the svc-ctl binary: %w", err)
	}
	return filepath.Abs(exe)
}
