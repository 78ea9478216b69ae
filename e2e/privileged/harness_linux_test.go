//go:build linux

package privileged

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
)

// gate is why the tests skip, or "".
var gate string

var (
	svcctlBin    string // the real binary, built once
	testsvcBin   string
	noopenat2Bin string // runs a program with openat2 answering ENOSYS (internal/testsvc/cmd/noopenat2)
	selfBin      string // a copy of this test binary others may run: the attacker's helper (helper_linux_test.go)
	work         string // root of everything the tests create (0755, root-owned)
	attacker     *account
)

// account is the throwaway unprivileged user.
type account struct {
	name     string
	uid, gid int
	home     string // a directory the attacker owns, under work
}

func TestMain(m *testing.M) {
	if helperMain() {
		return
	}
	switch {
	case os.Getenv("SVCCTL_E2E_PRIVILEGED") != "1":
		gate = "set SVCCTL_E2E_PRIVILEGED=1 (as root) to run the privileged end-to-end tests"
	case os.Geteuid() != 0:
		gate = "the privileged end-to-end tests need root (they create a throwaway user)"
	}
	if gate != "" {
		os.Exit(m.Run())
	}
	code, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "privileged e2e setup:", err)
		teardown()
		os.Exit(1)
	}
	if code == 0 {
		code = m.Run()
	}
	teardown()
	os.Exit(code)
}

func setup() (int, error) {
	noteSources()
	var err error
	if work, err = os.MkdirTemp("", "svcctl-e2e-priv-"); err != nil {
		return 1, err
	}
	// Others must be able to reach the attacker's directory inside it.
	if err := os.Chmod(work, 0o755); err != nil {
		return 1, err
	}
	svcctlBin = filepath.Join(work, "svc-ctl")
	b := exec.Command("go", "build", "-o", svcctlBin, "svcctl/cmd/svc-ctl")
	b.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := b.CombinedOutput(); err != nil {
		return 1, fmt.Errorf("build svc-ctl: %w\n%s", err, out)
	}
	if testsvcBin, err = testsvc.Build(work); err != nil {
		return 1, err
	}
	if noopenat2Bin, err = testutil.GoBuild(work, "./internal/testsvc/cmd/noopenat2"); err != nil {
		return 1, err
	}
	if selfBin, err = copySelf(); err != nil {
		return 1, err
	}
	attacker, err = newAccount()
	return 0, err
}

// newAccount creates svcctl-e2e-<random>, a system user without a login
// shell, and a directory it owns.
func newAccount() (*account, error) {
	suffix := make([]byte, 4)
	rand.Read(suffix)
	name := "svcctl-e2e-" + hex.EncodeToString(suffix)
	home := filepath.Join(work, "home-"+name) // its home in the user database too: a person's
	if out, err := exec.Command("useradd", "--system", "--no-create-home", "--home-dir", home, "--user-group",
		"--shell", "/usr/sbin/nologin", name).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("useradd %s: %w: %s", name, err, out)
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	a := &account{name: name, home: home}
	a.uid, _ = strconv.Atoi(u.Uid)
	a.gid, _ = strconv.Atoi(u.Gid)
	if err := os.Mkdir(a.home, 0o755); err != nil {
		return a, err
	}
	return a, os.Chown(a.home, a.uid, a.gid)
}

func teardown() {
	if attacker != nil {
		// Every process of the user first (all of them started by these
		// tests: the user did not exist before), by pid.
		killUID(attacker.uid)
		if out, err := exec.Command("userdel", attacker.name).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "userdel %s: %v: %s\n", attacker.name, err, out)
		}
	}
	if work != "" {
		os.RemoveAll(work)
	}
}

func requirePrivileged(t *testing.T) {
	t.Helper()
	if gate != "" {
		t.Skip(gate)
	}
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// asRoot runs svc-ctl as root with a minimal environment plus extra.
func asRoot(t *testing.T, extra []string, args ...string) result {
	t.Helper()
	return run(t, nil, extra, args...)
}

// asAttacker runs svc-ctl as the throwaway user.
func asAttacker(t *testing.T, args ...string) result {
	t.Helper()
	cred := &syscall.Credential{Uid: uint32(attacker.uid), Gid: uint32(attacker.gid)}
	return run(t, cred, []string{"HOME=" + attacker.home, "USER=" + attacker.name}, args...)
}

func run(t *testing.T, cred *syscall.Credential, extra []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(svcctlBin, args...)
	cmd.Env = append([]string{"PATH=/usr/sbin:/usr/bin:/sbin:/bin"}, extra...)
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	cmd.Dir = "/"
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run svc-ctl %v: %v", args, err)
	}
	return result{out.String(), errb.String(), code}
}

// rootDir makes a root-owned 0755 directory for a test (configs live in
// such directories, as /etc/svc-ctl does).
func rootDir(t *testing.T, name string) string {
	t.Helper()
	d := filepath.Join(work, t.Name(), name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := d; p != work; p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(work, strings.SplitN(t.Name(), "/", 2)[0])) })
	return d
}

// attackerDir makes a directory the attacker owns, as their home would be.
func attackerDir(t *testing.T, name string) string {
	t.Helper()
	d := filepath.Join(attacker.home, t.Name(), name)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	for p := d; p != attacker.home; p = filepath.Dir(p) {
		if err := os.Chown(p, attacker.uid, attacker.gid); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Join(attacker.home, strings.SplitN(t.Name(), "/", 2)[0])) })
	return d
}

// writeAs writes a file owned by uid (the attacker planting it, or root).
func writeAs(t *testing.T, path, content string, mode os.FileMode, uid, gid int) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, uid, gid); err != nil {
		t.Fatal(err)
	}
}

// symlinkAs plants a symbolic link owned by the attacker.
func symlinkAs(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, attacker.uid, attacker.gid); err != nil {
		t.Fatal(err)
	}
}

// victim is a root-only file an attack would overwrite, append to or copy.
func victim(t *testing.T) (path, content string) {
	t.Helper()
	path = filepath.Join(rootDir(t, "secret"), "victim")
	content = "root only: " + t.Name() + "\n"
	writeAs(t, path, content, 0o600, 0, 0)
	return path, content
}

func assertUnchanged(t *testing.T, path, content string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != content {
		t.Fatalf("%s changed: %q, %v; want %q", path, b, err, content)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s mode changed: %v %v", path, fi.Mode(), err)
	}
}

func assertAbsent(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); err == nil {
		t.Fatalf("%s exists: the attack worked", path)
	}
}

func wantRefused(t *testing.T, r result, code int, parts ...string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got:\n%v", code, r)
	}
	for _, p := range parts {
		if !strings.Contains(r.stderr+r.stdout, p) {
			t.Errorf("output lacks %q:\n%v", p, r)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// killUID SIGKILLs, by pid, every process whose real uid is uid.
func killUID(uid int) {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "status")); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.Itoa(uid) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}
}

// rootConfig writes a root-owned 0600 config in a root-owned directory,
// with its state dir beside it unless the body sets one: the setup an
// administrator would make.
func rootConfig(t *testing.T, body string) (cfg, state string) {
	t.Helper()
	dir := rootDir(t, "etc")
	state = filepath.Join(rootDir(t, "var"), "state")
	if !strings.Contains(body, "state_dir") {
		body = fmt.Sprintf("[agent]\nstate_dir = %q\n\n", state) + body
	}
	cfg = filepath.Join(dir, "svc-ctl.toml")
	writeAs(t, cfg, body, 0o600, 0, 0)
	return cfg, state
}

// webService is a [[service]] running testsvc on addr.
func webService(name, addr string, extra string) string {
	return fmt.Sprintf(`[[service]]
name = %q
command = [%q, "--addr", %q]
health.http = "http://%s/health"
start_timeout = "10s"
%s
`, name, testsvcBin, addr, addr, extra)
}

// noteSources stats every Go file of the module, so that go test's result
// cache (which records what a test stats) is invalidated by any change to
// the svc-ctl these tests build, not only by a change to the tests.
func noteSources() {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return
	}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && p != root {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") {
			os.Stat(p)
		}
		return nil
	})
}
