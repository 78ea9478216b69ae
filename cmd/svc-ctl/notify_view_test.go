package main

import (
	"strings"
	"testing"

	"svcctl/config"
)

// TestChannelViewOfAnUnreadURLFile: `notify list` run by someone who may
// not read a channel's url_file names the file rather than the stand-in
// value the reader's load puts there.
func TestChannelViewOfAnUnreadURLFile(t *testing.T) {
	cfg := &config.Config{
		Notify: []config.Notify{
			{Name: "phone", Kind: config.NotifyNtfy, URL: "https://unread.invalid/secret-file", URLFile: "/etc/svc-ctl/ntfy-url"},
			{Name: "hook", Kind: config.NotifyWebhook, URL: "https://hooks.example.com/s3cret", URLFile: "/etc/svc-ctl/hook-url"},
		},
		UnreadEnvFiles: []string{"/etc/svc-ctl/ntfy-url"},
	}
	vs := channelViews(cfg, nil)
	if got := vs[0].Target; got != "(in /etc/svc-ctl/ntfy-url, which you may not read)" {
		t.Errorf("unread url_file: target %q", got)
	}
	if got := vs[1].Target; got != "https://hooks.example.com/[redacted]" || strings.Contains(got, "s3cret") {
		t.Errorf("read url_file: target %q", got)
	}
}
