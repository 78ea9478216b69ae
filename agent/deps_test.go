package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// The agent's loop is what sits in memory all day: everything it links is
// initialised at start and its pages touched: what it links is
// resident memory (docs/benchmarks.md, "A lean agent").
// What it may link is a list, checked for every OS; a new dependency is a
// decision made here, not an accident. The CLI, the installer, the reports
// and the status page are not the loop's business, nor are test helpers.
func TestAgentLinksOnlyTheLoop(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	allowed := []string{
		"svcctl/agent", "svcctl/watchdog", "svcctl/notify", "svcctl/probe", "svcctl/proc", "svcctl/snapshot",
		"svcctl/runtrace", "svcctl/schedule", "svcctl/state", "svcctl/config", "svcctl/internal/",
		"svcctl/control",                                 // the requests it answers (reload, run a job now)
		"svcctl/jobs", "svcctl/logcap", "svcctl/metrics", // what it runs beside its lifecycle
		// ledger: pure-Go SQLite and its runtime
		"modernc.org/", "github.com/google/uuid", "github.com/dustin/go-humanize", "github.com/mattn/go-isatty",
		"github.com/ncruces/go-strftime", "github.com/remyoudompheng/bigfft",
		// config, schedules, log rotation, locks
		"github.com/pelletier/go-toml/v2", "github.com/robfig/cron/v3", "gopkg.in/natefinch/lumberjack.v2",
		"github.com/gofrs/flock",
		// process facts and identity (gopsutil and its own dependencies)
		"github.com/shirou/gopsutil/v4/", "github.com/tklauser/", "github.com/ebitengine/purego",
		"github.com/yusufpapurcu/wmi", "github.com/go-ole/go-ole", "github.com/lufia/plan9stats",
		"github.com/power-devops/perfstat",
		"golang.org/x/sys/", "golang.org/x/net/", "golang.org/x/text/", "golang.org/x/term",
		// notify's desktop channel: freedesktop notifications over D-Bus, Windows toasts
		"github.com/godbus/dbus/v5", "git.sr.ht/~jackmordaunt/go-toast",
		// Linux only: inotify, so a log written past log_max is cut at once (logcap/logwatch_linux.go)
		"github.com/fsnotify/fsnotify",
		// notify's otlp channel: OTLP's message types and their protobuf runtime
		"google.golang.org/protobuf/", "go.opentelemetry.io/proto/otlp/common/", "go.opentelemetry.io/proto/otlp/logs/",
		"go.opentelemetry.io/proto/otlp/metrics/", "go.opentelemetry.io/proto/otlp/resource/",
	}
	denied := map[string]string{
		"github.com/spf13/cobra":       "the CLI",
		"github.com/spf13/pflag":       "the CLI",
		"github.com/kardianos/service": "the installer (L1): svc-ctl install",
		"svcctl/install":               "the installer (L1): svc-ctl install",
		"svcctl/report":                "the reports people ask for (status, why, missing, verify)",
		"svcctl/ui":                    "the status page",
		"svcctl/cmd/":                  "the command line",
		"svcctl/internal/testutil":     "test helpers",
		"svcctl/internal/testsvc":      "test helpers",
		// OTLP/HTTP needs none of gRPC: the collector/* packages of the
		// OTLP protos would link it and its gateway (about 10 MB).
		"go.opentelemetry.io/proto/otlp/collector": "OTLP over gRPC (the otlp channel sends LogsData/MetricsData over HTTP)",
		"google.golang.org/grpc":                   "OTLP over gRPC (the otlp channel sends LogsData/MetricsData over HTTP)",
		"github.com/grpc-ecosystem":                "OTLP over gRPC (the otlp channel sends LogsData/MetricsData over HTTP)",
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		cmd := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=amd64")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (%s): %v", goos, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if why, bad := deniedBy(dep, denied); bad {
				t.Errorf("GOOS=%s: the agent links %s, which belongs to %s, not to the loop", goos, dep, why)
			} else if !hasPrefix(dep, allowed) {
				t.Errorf("GOOS=%s: the agent links %s, which is not on its list: add it to this test only if the loop needs it", goos, dep)
			}
		}
	}
}

func deniedBy(dep string, denied map[string]string) (string, bool) {
	for p, why := range denied {
		if dep == p || strings.HasPrefix(dep, strings.TrimSuffix(p, "/")+"/") {
			return why, true
		}
	}
	return "", false
}

func hasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if s == strings.TrimSuffix(p, "/") || strings.HasPrefix(s, p) || strings.HasPrefix(s, p+"/") {
			return true
		}
	}
	return false
}
