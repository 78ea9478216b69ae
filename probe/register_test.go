package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"svcctl/config"
)

// A dependency kind declared the way a new check kind's file declares it:
// its keys, their rules, its Func and its target, registered at init and
// named nowhere else. TestRegisteredKind holds the whole path to it.

type bannerKeys struct {
	Address string `toml:"address_of_banner" doc:"host:port that must greet first"`
	Banner  string `toml:"banner" default:"220" doc:"what the greeting starts with"`
}

func init() {
	register(config.DependKind{Name: "test-banner", Keys: bannerKeys{}, Check: func(d *config.Depend, fail func(string, string, ...any)) {
		if d.Keys.(*bannerKeys).Address == "" {
			fail("address_of_banner", `kind "test-banner" needs address_of_banner: set address_of_banner = "127.0.0.1:25"`)
		}
	}}, probeBanner, func(keys any) string { return keys.(*bannerKeys).Address })
}

func probeBanner(ctx context.Context, s Spec) Result {
	k := s.Keys.(*bannerKeys)
	c, err := (&net.Dialer{}).DialContext(ctx, "tcp", k.Address)
	if err != nil {
		return unhealthy("%v", err)
	}
	defer c.Close()
	b := make([]byte, 64)
	n, _ := c.Read(b)
	if !strings.HasPrefix(string(b[:n]), k.Banner) {
		return unhealthy("greeting %q, want %q first", b[:n], k.Banner)
	}
	return Result{Healthy: true}
}

// TestRegisteredKind: a check kind registered by its own file is a
// depends kind of the config (its keys checked strictly, with file and
// line, defaulted, printed) and runs through DependSpec and Run.
func TestRegisteredKind(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			fmt.Fprintf(c, "220 ready\r\n")
			c.Close()
		}
	}()
	src := fmt.Sprintf(`[[service]]
name = "web"
command = ["/bin/true"]
[service.health]
tcp = "127.0.0.1:1"
[[service.depends]]
kind = "test-banner"
address_of_banner = %q
`, l.Addr().String())
	file := filepath.Join(t.TempDir(), "svc-ctl.toml")
	cfg, err := config.Parse([]byte(src), file)
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Services[0].Depends[0]
	if k := d.Keys.(*bannerKeys); k.Banner != "220" {
		t.Errorf("default banner %q", k.Banner)
	}
	if r := Run(context.Background(), DependSpec(d, nil)); !r.Healthy || r.Kind != "test-banner" || r.Target != l.Addr().String() {
		t.Errorf("result %+v", r)
	}
	view, _ := json.Marshal(cfg.Redacted())
	if !strings.Contains(string(view), `"address_of_banner":"`+l.Addr().String()) || !strings.Contains(string(view), `"banner":"220"`) {
		t.Errorf("view %s", view)
	}

	for _, tc := range []struct{ extra, want string }{
		{"banner = 7\n", "config:9: service \"web\": depends[0].banner: wrong type: want a string, got an integer"},
		{"address = \"x:1\"\n", "config:9: service \"web\": depends[0].address: not used by kind \"test-banner\""},
		{"bannr = \"x\"\n", "config:9: service \"web\": depends[0].bannr: unknown key: did you mean \"banner\"?"},
	} {
		_, err := config.Parse([]byte(src+tc.extra), "")
		if errs := config.Errors(err); len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.extra, err, tc.want)
		}
	}
	_, err = config.Parse([]byte(strings.Replace(src, "address_of_banner", "#", 1)), "")
	if err == nil || !strings.Contains(err.Error(), `config:6: service "web": depends[0].address_of_banner: kind "test-banner" needs address_of_banner`) {
		t.Errorf("missing address: %v", err)
	}
}
