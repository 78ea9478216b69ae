package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"svcctl/internal/testsvc"
	"svcctl/internal/testutil"
)

// helperEnv makes the re-executed test binary act as one of the helper
// processes below instead of running tests.
const helperEnv = "PROC_TEST_HELPER"

func TestMain(m *testing.M) {
	if group := os.Getenv(CtrlBreakEnv); group != "" {
		os.Exit(CtrlBreakMain(group)) // as svc-ctl's main does
	}
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runHelper is the body of a helper process. Output goes to its stdout,
// which Spawn points at the test's log file.
func runHelper(mode string, args []string) int {
	switch mode {
	case "print": // report env and cwd, exit 7
		wd, _ := os.Getwd()
		fmt.Printf("value=%s\ncwd=%s\n", os.Getenv("PROC_TEST_VALUE"), wd)
		return 7
	case "ignore-term": // a service that shrugs off SIGTERM
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ignoring SIGTERM")
		return sleepForever()
	case "group": // a service with a child in its process group
		return runGroupLeader(args)
	case "spawn-detached": // spawn a grandchild, record it, exit at once
		return runSpawnDetached(args)
	case "interrupt": // a console program that ends cleanly on CTRL_BREAK (os.Interrupt)
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt)
		fmt.Println("waiting for an interrupt")
		<-ch
		fmt.Println("got an interrupt: shutting down cleanly")
		return 0
	case "testsvc":
		return testsvc.Main(args, os.Stdout, os.Stderr)
	case "testsvc-ignore-term": // an HTTP service that shrugs off SIGTERM
		signal.Ignore(syscall.SIGTERM)
		return testsvc.Main(args, os.Stdout, os.Stderr)
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 2
}

func sleepForever() int {
	for {
		time.Sleep(time.Hour)
	}
}

// runGroupLeader starts a child in its own process group (not detached)
// and prints the child's pid. args[0] is "exec" with the child's argv
// following, or a helper mode for the child.
func runGroupLeader(args []string) int {
	var cmd *exec.Cmd
	if args[0] == "exec" {
		cmd = exec.Command(args[1], args[2:]...)
	} else {
		exe, _ := os.Executable()
		cmd = exec.Command(exe)
		cmd.Env = append(os.Environ(), helperEnv+"="+args[0])
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("child=%d\n", cmd.Process.Pid)
	return sleepForever()
}

// runSpawnDetached: args are pidfile, logfile, argv...
func runSpawnDetached(args []string) int {
	c, err := Spawn(SpawnSpec{Argv: args[2:], LogPath: args[1]})
	if err == nil {
		err = WritePidFile(args[0], c.Identity)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// helperSpec spawns the test binary as helper mode with args.
func helperSpec(t testing.TB, mode string, args ...string) SpawnSpec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return SpawnSpec{
		Argv:    append([]string{exe}, args...),
		Env:     map[string]string{helperEnv: mode},
		LogPath: filepath.Join(tempDir(t), "runtime.log"),
	}
}

// tempDir is t.TempDir, except that under Wine (where removing a file a
// process had open fails with "Invalid function") what cannot be removed
// is left behind rather than failing the test.
func tempDir(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "proc-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// spawnT spawns s and stops it (identity-checked, by PID) when the test ends.
func spawnT(t testing.TB, s SpawnSpec) *Child {
	t.Helper()
	c, err := Spawn(s)
	if err != nil {
		t.Fatalf("Spawn: %v", err)
	}
	t.Cleanup(func() { stopQuietly(c.Identity) })
	return c
}

func stopQuietly(id Identity) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = Stop(ctx, id, 0)
}

// waitLog polls the log at path until it contains substr and returns it.
func waitLog(t testing.TB, path, substr string) string {
	t.Helper()
	var text string
	testutil.WaitFor(t, 20*time.Second, fmt.Sprintf("%q in %s", substr, path), func() bool {
		b, _ := os.ReadFile(path)
		text = string(b)
		return strings.Contains(text, substr)
	})
	return text
}

func sleepPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("sleep")
	if err != nil {
		t.Skipf("no sleep binary: %v", err)
	}
	return p
}

func childPID(t *testing.T, log string) int32 {
	t.Helper()
	m := regexp.MustCompile(`child=(\d+)`).FindStringSubmatch(log)
	if m == nil {
		t.Fatalf("no child pid in log:\n%s", log)
	}
	n, _ := strconv.Atoi(m[1])
	return int32(n)
}
