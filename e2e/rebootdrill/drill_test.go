package rebootdrill

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"
)

// TestRebootDrill runs the whole drill (run.sh, every scenario). Run it on its
// own: SVCCTL_REBOOT_DRILL=1 go test -timeout 40m -run RebootDrill ./e2e/rebootdrill/
func TestRebootDrill(t *testing.T) {
	if os.Getenv("SVCCTL_REBOOT_DRILL") != "1" {
		t.Skip("the reboot drill boots qemu guests for minutes on both cores: set SVCCTL_REBOOT_DRILL=1 and run it alone (make reboot-drill)")
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" || os.Geteuid() != 0 {
		t.Skip("the reboot drill needs root on linux/amd64")
	}
	ctx := context.Background()
	if dl, ok := t.Deadline(); ok {
		// leave time to report: run.sh kills its own qemu when it is killed
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-30*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, "./run.sh")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 20 * time.Second
	if err := cmd.Run(); err != nil {
		t.Fatalf("reboot drill failed: %v (evidence in dist/rebootdrill/<scenario>/)", err)
	}
}
