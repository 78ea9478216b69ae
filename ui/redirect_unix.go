//go:build unix

package ui

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	"svcctl/internal/fsutil"
)

// invoker is the person `ui --open` opens the page for: this process's
// user, or, when root runs it through sudo, the user sudo names, whose
// browser it is (a browser must not run as root).
type invoker struct {
	uid, gid int
	home     string
	sudo     bool     // root acting for uid: files are given to them, the opener runs as them
	env      []string // the opener's environment under sudo
}

func currentInvoker() (*invoker, error) {
	if os.Geteuid() == 0 {
		if name := os.Getenv("SUDO_USER"); name != "" && name != "root" {
			u, err := user.Lookup(name)
			if err != nil {
				return nil, fmt.Errorf("sudo names user %q, who is not known here: %w", name, err)
			}
			uid, err1 := strconv.Atoi(u.Uid)
			gid, err2 := strconv.Atoi(u.Gid)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("user %q has a non-numeric uid or gid", name)
			}
			return &invoker{uid: uid, gid: gid, home: u.HomeDir, sudo: true, env: openerEnv(u, uid)}, nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("no home directory to put the page's redirect file in: %w", err)
	}
	return &invoker{uid: os.Getuid(), gid: os.Getgid(), home: home}, nil
}

// openerEnv is what the opener run as u gets under sudo: u's HOME, USER and
// LOGNAME, this process's PATH, and what a desktop session needs to reach
// the browser (display, session bus), nothing else of root's.
func openerEnv(u *user.User, uid int) []string {
	env := []string{"HOME=" + u.HomeDir, "USER=" + u.Username, "LOGNAME=" + u.Username, "PATH=" + os.Getenv("PATH")}
	for _, k := range []string{"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE",
		"XDG_DATA_DIRS", "XDG_CONFIG_DIRS", "BROWSER", "LANG"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	rt := filepath.Join("/run/user", strconv.Itoa(uid))
	if fi, err := os.Stat(rt); err == nil && fi.IsDir() {
		env = append(env, "XDG_RUNTIME_DIR="+rt)
		if _, err := os.Stat(filepath.Join(rt, "bus")); err == nil {
			env = append(env, "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(rt, "bus"))
		}
	}
	return env
}

// apply makes cmd run as the person, when root acts for them.
func (w *invoker) apply(cmd *exec.Cmd) {
	if w == nil || !w.sudo {
		return
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(w.uid), Gid: uint32(w.gid)}}
	cmd.Env, cmd.Dir = w.env, w.home
}

// own gives the directory name in d, just made, to the person.
func (w *invoker) own(d *fsutil.Dir, name string) error {
	if !w.sudo {
		return nil
	}
	return d.Lchown(name, w.uid, w.gid)
}

// mine refuses a redirect directory that is not the person's, or that
// others may write.
func (w *invoker) mine(d *fsutil.Dir) error {
	fi, err := d.Stat()
	if err != nil {
		return err
	}
	if owner, _ := fsutil.Owner(fi); owner != w.uid {
		return fmt.Errorf("%s is not yours (owner uid %d): remove it and run svc-ctl ui --open again", d.Path(), owner)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by others (mode %#o): run: chmod 700 %s", d.Path(), fi.Mode().Perm(), d.Path())
	}
	return nil
}

// ownFile makes the redirect file the person's, 0600.
func (w *invoker) ownFile(f *os.File) error {
	if w.sudo {
		if err := f.Chown(w.uid, w.gid); err != nil {
			return err
		}
	}
	return f.Chmod(0o600)
}
