//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// secureConfig makes root-owned dir/svc-ctl.toml with modes 0755 / 0600.
func secureConfig(t *testing.T) (dir, file string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the check requires root ownership, which only root can create")
	}
	dir = filepath.Join(t.TempDir(), "etc")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(dir, "svc-ctl.toml")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, file
}

func TestCheckPermissions(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, dir, file string)
		want  []string // substrings of the error; none = accepted
	}{
		{"secure", func(t *testing.T, dir, file string) {}, nil},
		{"group-writable file", chmod(false, 0o620), []string{"writable by its group or by everyone (mode 0620)", "chmod go-w"}},
		{"world-writable file", chmod(false, 0o606), []string{"(mode 0606)", "chmod go-w"}},
		{"file owned by a user", chown(false, 4242), []string{"is owned by uid 4242, not root", "chown root"}},
		{"world-writable dir", chmod(true, 0o777), []string{"directory", "(mode 0777)", "chmod go-w"}},
		{"sticky world-writable dir", chmod(true, 0o777|os.ModeSticky), nil},
		{"dir owned by a user", chown(true, 4242), []string{"directory", "owned by uid 4242"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, file := secureConfig(t)
			tt.setup(t, dir, file)
			err := CheckPermissions(file)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("CheckPermissions = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrInsecurePermissions) {
				t.Fatalf("CheckPermissions = %v, want ErrInsecurePermissions", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestCheckPermissionsSymlink: the file behind a symlink is what is judged.
func TestCheckPermissionsSymlink(t *testing.T) {
	dir, file := secureConfig(t)
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.toml")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if err := CheckPermissions(link); !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("CheckPermissions(symlink) = %v, want the target in %s refused", err, dir)
	}
	if err := CheckPermissions(filepath.Join(dir, "missing.toml")); err == nil || errors.Is(err, ErrInsecurePermissions) {
		t.Fatalf("a missing file must be a plain error, got %v", err)
	}
}

func chmod(onDir bool, mode os.FileMode) func(t *testing.T, dir, file string) {
	return func(t *testing.T, dir, file string) {
		target := file
		if onDir {
			target = dir
		}
		if err := os.Chmod(target, mode); err != nil {
			t.Fatal(err)
		}
	}
}

func chown(onDir bool, uid int) func(t *testing.T, dir, file string) {
	return func(t *testing.T, dir, file string) {
		target := file
		if onDir {
			target = dir
		}
		if err := os.Chown(target, uid, -1); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLoadToRunChecksEnvFiles: whoever can write an env_file chooses the
// environment of a root service (LD_PRELOAD): a privileged load refuses it
// as it refuses the config; a per-user load does not check.
func TestLoadToRunChecksEnvFiles(t *testing.T) {
	dir, file := secureConfig(t)
	env := filepath.Join(dir, "web.env")
	if err := os.WriteFile(env, []byte("A=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	body := "[[service]]\nname = \"web\"\ncommand = [\"/bin/true\"]\nhealth.tcp = \"127.0.0.1:1\"\nenv_file = \"web.env\"\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	old := userMode
	t.Cleanup(func() { userMode = old })
	userMode = func() bool { return false }
	if _, err := LoadToRun(file); err != nil {
		t.Fatalf("a secure config and env_file: %v", err)
	}
	if err := os.Chmod(env, 0o666); err != nil {
		t.Fatal(err)
	}
	_, err := LoadToRun(file)
	if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "chmod go-w "+env) {
		t.Fatalf("LoadToRun with a world-writable env_file = %v", err)
	}
	userMode = func() bool { return true }
	if _, err := LoadToRun(file); err != nil {
		t.Fatalf("a per-user load checks no permissions: %v", err)
	}
}

// A refused env_file is named as one (not "config"), and a directory that
// the config and its env_file share is refused once, not once per file.
func TestTrustRefusalNamesTheEnvFileAndEachDirectoryOnce(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("ownership is judged against root: run as root (CI does)")
	}
	dir, file := secureConfig(t)
	env := filepath.Join(dir, "web.env")
	if err := os.WriteFile(env, []byte("A=1\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(env, 0o666)
	body := "[[service]]\nname = \"web\"\ncommand = [\"/bin/true\"]\nhealth.tcp = \"127.0.0.1:1\"\nenv_file = \"web.env\"\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o775); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	msg := cfg.CheckTrusted().Error()
	if !strings.Contains(msg, "env_file "+env+" is writable") || strings.Contains(msg, "config "+env) {
		t.Errorf("the env_file is not named as one:\n%s", msg)
	}
	if n := strings.Count(msg, "directory "+dir+" of the"); n != 1 {
		t.Errorf("the shared directory is refused %d times, want once:\n%s", n, msg)
	}
}
