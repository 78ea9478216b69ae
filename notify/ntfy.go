package notify

import (
	"context"
	"net/http"
	"strings"

	"svcctl/config"
)

// ntfy publishes the message to a topic URL (ntfy.sh or a self-hosted
// server): title, priority and tags as headers, the text as the body.
type ntfy struct {
	url      string
	token    string
	priority string
	tags     []string
}

func openNtfy(n *config.Notify) (Channel, error) {
	p := n.Priority
	if p == "" {
		p = "default"
	}
	return &ntfy{url: n.URL, token: n.Token, priority: p, tags: n.Tags}, nil
}

// ntfyRank orders ntfy's priority names.
var ntfyRank = map[string]int{"min": 1, "low": 2, "default": 3, "high": 4, "urgent": 5}

func (c *ntfy) Send(ctx context.Context, e *Event) error {
	h := http.Header{}
	h.Set("Title", e.Title())
	h.Set("Priority", c.priorityOf(e))
	h.Set("Tags", strings.Join(append([]string{ntfyTag(e)}, c.tags...), ","))
	h.Set("Idempotency-Key", e.ID)
	h.Set("Content-Type", "text/plain; charset=utf-8")
	if c.token != "" {
		h.Set("Authorization", "Bearer "+c.token)
	}
	return post(ctx, c.url, h, []byte(messageBody(e)))
}

// messageBody is the text of a channel that writes to a person (ntfy, a
// mail): the message, what was held back, then the detail.
func messageBody(e *Event) string {
	body := e.Text()
	if e.Detail != "" {
		body += "\n\n" + e.Detail
	}
	return body
}

// priorityOf: given-up, missing and agent events are at least high.
func (c *ntfy) priorityOf(e *Event) string {
	if e.High() && ntfyRank[c.priority] < ntfyRank["high"] {
		return "high"
	}
	return c.priority
}

// ntfyTag is an emoji short code ntfy shows before the title.
func ntfyTag(e *Event) string {
	switch e.Kind {
	case KindServiceRecovered, KindJobRecovered:
		return "white_check_mark"
	case KindJobSkipped, KindTest:
		return "information_source"
	case KindServiceGivenUp, KindJobMissing, KindAgent:
		return "rotating_light"
	}
	return "warning"
}
