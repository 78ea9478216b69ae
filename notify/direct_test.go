package notify

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"svcctl/config"
)

func TestTestSendsThroughEachChannel(t *testing.T) {
	ok := newReceiver(t, nil)
	bad := newReceiver(t, func(int, *http.Request) int { return 500 })
	onlyMissing := channelConf("pager", config.NotifyNtfy, ok.srv.URL+"/topic")
	onlyMissing.On = []string{KindJobMissing}
	cfg := cfgWith(channelConf("hook", config.NotifyWebhook, ok.srv.URL), onlyMissing,
		channelConf("broken", config.NotifyWebhook, bad.srv.URL))
	got, err := Test(ctxb, cfg, "", "ws-07")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Err != nil || got[1].Err != nil || got[2].Err == nil ||
		!strings.Contains(got[2].Err.Error(), "HTTP 500") || got[0].Latency <= 0 {
		t.Fatalf("attempts = %+v", got)
	}
	var hookBody string
	for _, r := range ok.got() {
		if r.Path == "/" {
			hookBody = string(r.Body)
		}
	}
	if !strings.Contains(hookBody, `"kind":"test"`) || !strings.Contains(hookBody, "test message from svc-ctl on ws-07") {
		t.Errorf("test event = %s", hookBody)
	}
	if got, err := Test(ctxb, cfg, "pager", "ws-07"); err != nil || len(got) != 1 || got[0].Channel != "pager" {
		t.Errorf("Test(pager) = %+v, %v", got, err)
	}
	if _, err := Test(ctxb, cfg, "phone", "ws-07"); err == nil || !strings.Contains(err.Error(), "the channels are hook, pager, broken") {
		t.Errorf("unknown channel: %v", err)
	}
	// SendDirect respects `on`.
	e := TestEvent("ws-07", time.Now())
	e.Kind = KindAgent
	if got := SendDirect(ctxb, cfg, &e); len(got) != 2 || got[0].Channel != "hook" || got[1].Channel != "broken" {
		t.Errorf("SendDirect = %+v", got)
	}
}
