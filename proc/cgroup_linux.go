package proc

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"svcctl/internal/svcname"
)

// A cgroup v2 per instance, under a parent the caller names (the agent's
// delegated cgroup). svc-ctl creates it, puts the leader into it at birth
// (clone3 CLONE_INTO_CGROUP), and removes it once the tree is gone. It
// enables no controller: it is only used to know the members, which no
// fork, setsid or double fork takes out of it.

// cgroupName reports whether base is the name of an instance cgroup:
// svc-NAME-RANDOM (12 hex digits). Only a directory named so is ever read
// as a tree (a pid file naming another cgroup, the root say, must never
// make svc-ctl signal its members).
func cgroupName(base string) bool { return svcname.ValidWithSuffix(base, "svc-") }

// cgroup2Magic is CGROUP2_SUPER_MAGIC, the f_type of a cgroup v2 mount.
const cgroup2Magic = 0x63677270

// validCgroup checks that dir can be an instance cgroup svc-ctl made.
func validCgroup(dir string) error {
	if !filepath.IsAbs(dir) || filepath.Clean(dir) != dir || !cgroupName(filepath.Base(dir)) {
		return fmt.Errorf("cgroup %q is not an instance cgroup svc-ctl creates (svc-NAME-HEX): not used", dir)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(filepath.Dir(dir), &st); err != nil {
		return fmt.Errorf("cgroup parent of %s: %w", dir, err)
	}
	if st.Type != cgroup2Magic {
		return fmt.Errorf("cgroup %s is not on a cgroup v2 file system: not used", dir)
	}
	return nil
}

// cgroupProcs lists the processes in dir. A cgroup that no longer exists
// has none.
func cgroupProcs(dir string) ([]int32, error) {
	if err := validCgroup(dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENODEV) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s/cgroup.procs: %w", dir, err)
	}
	var pids []int32
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if n, err := strconv.ParseInt(strings.TrimSpace(sc.Text()), 10, 32); err == nil && n > 0 {
			pids = append(pids, int32(n))
		}
	}
	return pids, nil
}

// newInstanceCgroup creates parent/svc-NAME-RANDOM and opens it for
// CLONE_INTO_CGROUP. The caller closes fd.
func newInstanceCgroup(parent, name string) (dir string, fd int, err error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", -1, fmt.Errorf("cgroup name: %w", err)
	}
	if name == "" {
		name = "service"
	}
	dir = filepath.Join(parent, "svc-"+name+"-"+hex.EncodeToString(rnd[:]))
	if err := validCgroup(dir); err != nil {
		return "", -1, err
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", -1, fmt.Errorf("create cgroup: %w", err)
	}
	fd, err = unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		_ = os.Remove(dir)
		return "", -1, fmt.Errorf("open cgroup %s: %w", dir, err)
	}
	return dir, fd, nil
}

// moveToCgroup puts pid into dir: the fallback where clone3 cannot start a
// process in a cgroup (kernels before 5.7). A child the leader forks before
// this write stays outside; the session still owns it.
func moveToCgroup(dir string, pid int) error {
	f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("join cgroup %s: %w", dir, err)
	}
	_, err = f.WriteString(strconv.Itoa(pid))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("join cgroup %s: %w", dir, err)
	}
	return nil
}

// killCgroup SIGKILLs every process in dir at once (cgroup.kill, Linux
// 5.14+), forks in flight included. False where the kernel lacks it.
func killCgroup(dir string) bool {
	if validCgroup(dir) != nil {
		return false
	}
	err := os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	return err == nil
}

// removeCgroup deletes an instance cgroup once it is empty. A cgroup that
// still has members (or is gone already) is left as it is.
func removeCgroup(dir string) {
	if dir == "" || validCgroup(dir) != nil {
		return
	}
	_ = unix.Rmdir(dir)
}

// DelegatedCgroup returns the cgroup v2 directory this process runs in when
// it was delegated to it (systemd's Delegate=yes marks the directory with
// the trusted.delegate or user.delegate extended attribute) and is writable:
// the parent under which Spawn may create instance cgroups. ok is false,
// with the reason, where there is none: then a tree is owned by its session
// only.
func DelegatedCgroup() (dir string, ok bool, why string) {
	return delegatedCgroupOf("self")
}

// DelegatedCgroupOf is DelegatedCgroup for another process (pid), so a
// command-line start can place a service beside the agent's ones.
func DelegatedCgroupOf(pid int32) (dir string, ok bool, why string) {
	return delegatedCgroupOf(strconv.Itoa(int(pid)))
}

func delegatedCgroupOf(who string) (string, bool, string) {
	b, err := os.ReadFile(procRoot + "/" + who + "/cgroup")
	if err != nil {
		return "", false, "cannot read its cgroup: " + err.Error()
	}
	rel, ok := unifiedPath(b)
	if !ok {
		return "", false, "no cgroup v2 membership (cgroup v1 host)"
	}
	mnt, ok := Cgroup2Mount()
	if !ok {
		return "", false, "no cgroup v2 file system mounted"
	}
	dir := filepath.Join(mnt, rel)
	if !delegated(dir) {
		return dir, false, "cgroup " + dir + " is not delegated (run the agent under the unit svc-ctl installs: Delegate=yes)"
	}
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return dir, false, "cgroup " + dir + " is not writable: " + err.Error()
	}
	return dir, true, ""
}

// unifiedPath finds the "0::/path" line of /proc/PID/cgroup.
func unifiedPath(b []byte) (string, bool) {
	for line := range strings.Lines(string(b)) {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok && strings.HasPrefix(p, "/") {
			return p, true
		}
	}
	return "", false
}

// Cgroup2Mount is where the cgroup v2 hierarchy is mounted: /sys/fs/cgroup
// on a unified host, /sys/fs/cgroup/unified on a hybrid one.
func Cgroup2Mount() (string, bool) {
	b, err := os.ReadFile(procRoot + "/self/mountinfo")
	if err != nil {
		return "", false
	}
	for line := range strings.Lines(string(b)) {
		// ... mount-point ... - fstype source options
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		if f := strings.Fields(pre); len(f) >= 5 {
			return unescapeMount(f[4]), true
		}
	}
	return "", false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// delegated reads systemd's delegation mark: trusted.delegate (system
// manager) or user.delegate (user manager), value "1".
var delegated = func(dir string) bool {
	for _, attr := range []string{"trusted.delegate", "user.delegate"} {
		buf := make([]byte, 8)
		if n, err := unix.Getxattr(dir, attr, buf); err == nil && strings.TrimSpace(string(buf[:n])) == "1" {
			return true
		}
	}
	return false
}
