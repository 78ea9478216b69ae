package proc

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"svcctl/internal/testutil"
)

// BenchmarkStopTree3Level is the figure "stop of a 3-level tree":
// npm -> sh -> server (sh scripts that do not exec, the leaf the test binary
// as an HTTP server), every member obeying SIGTERM. Only StopTree is timed;
// the spawn and the wait for the server to listen are not.
func BenchmarkStopTree3Level(b *testing.B) {
	for _, cg := range []string{"session", "cgroup"} {
		b.Run(cg, func(b *testing.B) {
			parent := ""
			if cg == "cgroup" {
				parent = benchCgroupParent(b)
			}
			dir := b.TempDir()
			for name, body := range shapes[2].scripts {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o700); err != nil {
					b.Fatal(err)
				}
			}
			exe, _ := os.Executable()
			var members int
			for b.Loop() {
				b.StopTimer()
				log := filepath.Join(b.TempDir(), "runtime.log")
				c, err := Spawn(SpawnSpec{Argv: []string{filepath.Join(dir, "run"), exe, "--addr", "127.0.0.1:0"},
					Env: map[string]string{helperEnv: "testsvc"}, LogPath: log, Name: "web", Cgroup: parent})
				if err != nil {
					b.Fatal(err)
				}
				waitLog(b, log, "listening on")
				testutil.WaitFor(b, 10*time.Second, "3 members", func() bool { t, _ := Members(c.Instance); return t.Len() == 3 })
				b.StartTimer()
				res, err := StopTree(context.Background(), c.Instance, 10*time.Second)
				b.StopTimer()
				if err != nil || len(res.Members) != 3 {
					b.Fatalf("StopTree = %s, %v", res, err)
				}
				members += len(res.Members)
				<-c.Done
				b.StartTimer()
			}
			b.ReportMetric(float64(members)/float64(b.N), "members/op")
		})
	}
}

// BenchmarkMembers is the cost of one listing of a tree (a /proc walk).
func BenchmarkMembers(b *testing.B) {
	c, err := Spawn(SpawnSpec{Argv: []string{sleepPath(b), "300"}})
	if err != nil {
		b.Fatal(err)
	}
	defer stopQuietly(c.Identity)
	for b.Loop() {
		if t, err := Members(c.Instance); err != nil || t.Len() != 1 {
			b.Fatalf("Members = %+v, %v", t, err)
		}
	}
}

func benchCgroupParent(b *testing.B) string {
	mnt, ok := Cgroup2Mount()
	if !ok {
		b.Skip("no cgroup v2 mounted")
	}
	dir := filepath.Join(mnt, "svcctl-bench-"+time.Now().Format("150405.000000"))
	if err := os.Mkdir(dir, 0o755); err != nil {
		b.Skipf("cannot create a cgroup: %v", err)
	}
	b.Cleanup(func() { os.Remove(dir) })
	return dir
}
