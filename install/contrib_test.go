package install

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// contrib/ holds the generated definitions as people would copy them: the
// same settings as `svc-ctl install` writes, with comments of their own.
// This test keeps them from drifting apart: outside comments, each contrib
// file must equal what the renderer produces for the spec in its header.

var xmlComment = regexp.MustCompile(`(?s)[ \t]*<!--.*?-->\n?`)

// settingsOnly drops comments (# lines, XML comments) and blank lines.
func settingsOnly(s string) string {
	s = xmlComment.ReplaceAllString(s, "")
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func contribSpec(darwin bool) Spec {
	s := linuxSystem()
	if darwin {
		s = darwinSystem()
	}
	return s
}

func TestContribMatchesRenderer(t *testing.T) {
	user := linuxUser()
	user.Exe, user.ConfigPath, user.StateDir, user.Home = "/usr/local/bin/svc-ctl", "%h/.config/svc-ctl/svc-ctl.toml", "%h/.local/state/svc-ctl", "%h"
	render := func(s Spec, t Target) string {
		u, err := RenderUnit(s, t)
		if err != nil {
			panic(err)
		}
		return u.Content
	}
	backstop := func(s Spec, t Target, i int) string {
		p, err := RenderBackstop(s, t, 10*time.Minute)
		if err != nil {
			panic(err)
		}
		return p.Files[i].Content
	}
	cases := map[string]string{
		"systemd/svc-ctl.service":          render(contribSpec(false), systemd),
		"systemd/svc-ctl-backstop.service": backstop(contribSpec(false), systemd, 0),
		"systemd/svc-ctl-backstop.timer":   backstop(contribSpec(false), systemd, 1),
		"launchd/svc-ctl.plist":            render(contribSpec(true), launchd),
		"launchd/svc-ctl-backstop.plist":   backstop(contribSpec(true), launchd, 0),
	}
	// The user unit in contrib uses systemd's %h; the renderer doubles a
	// literal %, so compare with %h put back.
	cases["systemd/svc-ctl-user.service"] = strings.ReplaceAll(render(user, systemd), "%%h", "%h")
	for name, want := range cases {
		b, err := os.ReadFile(filepath.Join("..", "contrib", name))
		if err != nil {
			t.Errorf("contrib/%s: %v", name, err)
			continue
		}
		if got, want := settingsOnly(string(b)), settingsOnly(want); got != want {
			t.Errorf("contrib/%s drifted from what svc-ctl install writes:\n--- contrib ---\n%s\n--- renderer ---\n%s", name, got, want)
		}
	}
}
