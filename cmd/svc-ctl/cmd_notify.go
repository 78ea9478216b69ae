package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"svcctl/config"
	"svcctl/internal/redact"
	"svcctl/notify"
	"svcctl/proc"
	"svcctl/runtrace"
	"svcctl/state"
)

// newNotifyCommand is the `notify` group: `notify test` and `notify list`.
// Events (service.down, service.given-up, service.recovered, job.failed,
// job.skipped, job.missing, agent) go through the [[notify]] channels of the
// config: see docs/notifications.md.
func newNotifyCommand(g *globals) *cobra.Command {
	cmd := newGroupCommand("notify", "Notification channels: send a test message, list what waits in the outbox")
	cmd.AddCommand(newNotifyTestCommand(g), newNotifyListCommand(g))
	return cmd
}

func newNotifyTestCommand(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:         "test [NAME]",
		Annotations: trust(trustRun), // a command channel runs a program
		Short:       "Send a test message through every channel (or NAME) now and say what happened (exit 1 on any failure)",
		Example: `  svc-ctl notify test
  svc-ctl notify test phone`,
		Args:              usageArgs(cobra.MaximumNArgs(1)),
		ValidArgsFunction: first(completeFrom(g, channelNames)),
		RunE:              func(cmd *cobra.Command, args []string) error { return runNotifyTest(cmd.Context(), g, args) },
	}
}

func runNotifyTest(ctx context.Context, g *globals, args []string) error {
	name := ""
	if len(args) == 1 {
		name = args[0]
	}
	cfg, err := loadConfigToRun(g) // a command channel runs a program
	if err != nil {
		return err
	}
	if len(cfg.Notify) == 0 {
		return configError{fmt.Errorf("%s has no [[notify]] channel: add one (docs/notifications.md shows each kind)", cfg.Path)}
	}
	host, _ := os.Hostname()
	// What an otlp channel says it is: the agent's ids, read, never made here.
	id, _ := notify.IdentityOf(state.PathsOf(cfg), version, false)
	notify.SetIdentity(id)
	attempts, err := notify.Test(ctx, cfg, name, host)
	if err != nil {
		return usageError{err}
	}
	recordTestResults(g, cfg, attempts)
	tw := tabwriter.NewWriter(g.stdout, 0, 0, 2, ' ', 0)
	failed := false
	for _, a := range attempts {
		if a.Err != nil {
			failed = true
			fmt.Fprintf(tw, "%s\t%s\tfailed: %v\n", a.Channel, a.Kind, a.Err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\tdelivered in %d ms\n", a.Channel, a.Kind, a.Latency.Milliseconds())
	}
	tw.Flush()
	if failed {
		return errSilent
	}
	return nil
}

// recordTestResults keeps each channel's result as its last delivery or
// error (status and verify read it), when a ledger exists; a test never
// creates one.
func recordTestResults(g *globals, cfg *config.Config, attempts []notify.Attempt) {
	path := state.PathsOf(cfg).DB()
	if _, err := os.Stat(path); err != nil {
		return
	}
	st, err := runtrace.Open(path, runtrace.Options{Logger: cliLogger(g), Boot: proc.BootID()})
	if err != nil {
		fmt.Fprintf(g.stderr, "svc-ctl: warning: results not recorded: %v\n", err)
		return
	}
	defer st.Close()
	now := time.Now()
	for _, a := range attempts {
		errText := ""
		if a.Err != nil {
			errText = a.Err.Error()
		}
		if err := st.ChannelResult(context.Background(), a.Channel, now, a.Latency, errText); err != nil {
			fmt.Fprintf(g.stderr, "svc-ctl: warning: result of %s not recorded: %v\n", a.Channel, err)
		}
	}
}

// channelNames are the [[notify]] channels, for completion.
func channelNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Notify))
	for _, n := range cfg.Notify {
		out = append(out, n.Name)
	}
	return out
}

type notifyListOptions struct {
	all, json bool
	limit     int
}

func newNotifyListCommand(g *globals) *cobra.Command {
	var o notifyListOptions
	cmd := &cobra.Command{
		Use:         "list",
		Annotations: trust(trustRead),
		Short:       "Deliveries waiting in the outbox and those that failed, and each channel's last delivery and error",
		Example: `  svc-ctl notify list
  svc-ctl notify list --all --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runNotifyList(cmd.Context(), g, o, args) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

func (o *notifyListOptions) addFlags(f *pflag.FlagSet) {
	f.BoolVar(&o.all, "all", false, "also deliveries that were delivered or held back")
	f.IntVarP(&o.limit, "limit", "n", 100, "at most this many deliveries")
	f.BoolVar(&o.json, "json", false, "print as JSON")
}

// deliveryView is one delivery as `notify list` shows it; the event's own
// words are already redacted where it was raised.
type deliveryView struct {
	Event     string    `json:"event"`
	Channel   string    `json:"channel"`
	Kind      string    `json:"kind"`
	Subject   string    `json:"subject"`
	Created   time.Time `json:"created_at"`
	State     string    `json:"state"`
	Attempts  int       `json:"attempts"`
	NextAt    time.Time `json:"next_attempt,omitzero"`
	HeldBack  int       `json:"held_back,omitempty"`
	LastError string    `json:"last_error,omitempty"`
	Message   string    `json:"message"`
	// Held: the delivery waits for its channel's min_interval (not a
	// failure, not a retry): it goes out at NextAt, or with an escalation.
	Held string `json:"held,omitempty"` // "min_interval 5m"
}

type notifyListView struct {
	Channels   []channelView  `json:"channels"`
	Deliveries []deliveryView `json:"deliveries"`
}

type channelView struct {
	Name         string    `json:"name"`
	Kind         string    `json:"kind"`
	Target       string    `json:"target,omitempty"`
	LastOK       time.Time `json:"last_delivery,omitzero"`
	LastError    string    `json:"last_error,omitempty"`
	LastErrorAt  time.Time `json:"last_error_at,omitzero"`
	FailingSince time.Time `json:"failing_since,omitzero"`
}

func runNotifyList(ctx context.Context, g *globals, o notifyListOptions, _ []string) error {
	cfg, err := loadConfig(g)
	if err != nil {
		return err
	}
	st, err := openLedgerForRead(cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	states := []string{runtrace.DeliveryPending, runtrace.DeliveryFailed}
	if o.all {
		states = nil
	}
	ds, err := st.Deliveries(ctx, o.limit, states...)
	if err != nil {
		return err
	}
	cs, err := st.ChannelStates(ctx)
	if err != nil {
		return err
	}
	v := notifyListView{Channels: channelViews(cfg, cs), Deliveries: []deliveryView{}}
	now := time.Now()
	for _, d := range ds {
		v.Deliveries = append(v.Deliveries, viewDelivery(cfg, d, now))
	}
	if o.json {
		return writeJSON(g.stdout, v)
	}
	printNotifyList(g.stdout, v)
	return nil
}

func channelViews(cfg *config.Config, cs []runtrace.ChannelState) []channelView {
	byName := map[string]runtrace.ChannelState{}
	for _, c := range cs {
		byName[c.Channel] = c
	}
	out := []channelView{}
	for _, n := range cfg.Notify {
		c := byName[n.Name]
		target := redact.SecretURL(n.URL)
		if n.URLFile != "" && slices.Contains(cfg.UnreadEnvFiles, n.URLFile) {
			target = "(in " + n.URLFile + ", which you may not read)"
		}
		out = append(out, channelView{Name: n.Name, Kind: n.Kind, Target: target, LastOK: c.LastOK,
			LastError: c.LastError, LastErrorAt: c.LastErrorAt, FailingSince: c.FailingSince})
	}
	return out
}

func viewDelivery(cfg *config.Config, d runtrace.Delivery, now time.Time) deliveryView {
	v := deliveryView{Event: d.EventID, Channel: d.Channel, Kind: d.Kind, Subject: d.Subject, Created: d.CreatedAt,
		State: d.State, Attempts: d.Attempts, HeldBack: d.HeldBack, LastError: d.LastError}
	if d.State == runtrace.DeliveryPending {
		v.NextAt = d.NextAt
	}
	if d.Deferred(now) {
		v.Held = "min_interval"
		if n := cfg.NotifyChannel(d.Channel); n != nil {
			v.Held += " " + config.FormatDuration(n.MinInterval)
		}
	}
	if e, err := notify.DecodeEvent(d.Payload); err == nil {
		v.Message = e.Message
	}
	return v
}

func printNotifyList(w io.Writer, v notifyListView) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANNEL\tKIND\tLAST DELIVERY\tLAST ERROR")
	for _, c := range v.Channels {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Name, c.Kind, stamp(c.LastOK), channelError(c))
	}
	tw.Flush()
	fmt.Fprintln(w)
	if len(v.Deliveries) == 0 {
		fmt.Fprintln(w, "nothing waiting: every event was delivered")
		return
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CREATED\tCHANNEL\tEVENT\tSTATE\tTRIES\tNEXT\tMESSAGE / LAST ERROR")
	for _, d := range v.Deliveries {
		what := d.Message
		if d.LastError != "" {
			what += " — " + d.LastError
		}
		st := d.State
		if d.Held != "" {
			st = fmt.Sprintf("held (%s, next at %s)", d.Held, stamp(d.NextAt))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\n", stamp(d.Created), d.Channel, d.Kind, st, d.Attempts, stamp(d.NextAt), what)
	}
	tw.Flush()
}

func channelError(c channelView) string {
	switch {
	case c.LastError == "":
		return "-"
	case c.FailingSince.IsZero():
		return fmt.Sprintf("%s (at %s; delivered since)", c.LastError, stamp(c.LastErrorAt))
	}
	return fmt.Sprintf("%s (failing since %s)", c.LastError, stamp(c.FailingSince))
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return fmtTime(t, false)
}
