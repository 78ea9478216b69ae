// Command drill-guest runs inside the reboot-drill guest, started on every
// boot by drill.service (a oneshot ordered After=multi-user.target). It keeps
// the boot counter, drives the scenario's steps for this boot through the real
// svc-ctl command line, prints each observation as a marker line on the
// evidence serial port, and then reboots or powers the guest off.
//
// It is test harness, never product: it must never start, enable or repair
// the agent or the service itself (that would hide the very defect the drill
// looks for); it only observes, kills the service on purpose, and reports.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"
)

// options are set by run.sh in drill.service's ExecStart.
type options struct {
	scenario   string
	svcctl     string
	config     string
	service    string // the supervised service's name in the config
	port       int    // the service's loopback port
	agentUnit  string // the systemd unit `svc-ctl install` creates
	timer      string // the systemd timer `svc-ctl install --backstop` creates
	every      string // the backstop timer's period, for install --backstop
	serial     string // the evidence port
	counter    string // the boot counter file
	wait       time.Duration
	verifyWait time.Duration
	slowWait   time.Duration // for what only the backstop timer brings back
}

func main() {
	var o options
	flag.StringVar(&o.scenario, "scenario", "main", "main | negative | backstop")
	flag.StringVar(&o.svcctl, "svc-ctl", "/usr/local/bin/svc-ctl", "the svc-ctl binary")
	flag.StringVar(&o.config, "config", "/etc/svc-ctl/svc-ctl.toml", "the svc-ctl config")
	flag.StringVar(&o.service, "service", "drillsvc", "the supervised service's name")
	flag.IntVar(&o.port, "port", 18080, "the supervised service's port on 127.0.0.1")
	flag.StringVar(&o.agentUnit, "agent-unit", "svc-ctl.service", "the agent's systemd unit")
	flag.StringVar(&o.timer, "backstop-timer", "svc-ctl-backstop.timer", "the backstop's systemd timer")
	flag.StringVar(&o.every, "every", "1m", "backstop period passed to install --every (empty: not passed)")
	flag.StringVar(&o.serial, "serial", "/dev/ttyS1", "where the markers go")
	flag.StringVar(&o.counter, "counter", "/var/lib/drill/boot", "the boot counter file")
	flag.DurationVar(&o.wait, "wait", 45*time.Second, "deadline for what the agent must do")
	flag.DurationVar(&o.verifyWait, "verify-wait", 30*time.Second, "deadline for `svc-ctl verify` to pass")
	flag.DurationVar(&o.slowWait, "slow-wait", 150*time.Second, "deadline for what the backstop timer must do")
	flag.Parse()
	os.Exit(run(o))
}

func run(o options) int {
	out, err := openSerial(o.serial)
	if err != nil {
		fmt.Fprintf(os.Stderr, "drill-guest: %v\n", err)
		out = os.Stdout // still visible on the console; the verdict will miss it and fail
	}
	boot, err := nextBoot(o.counter)
	d := &drill{o: o, out: out, boot: boot}
	if err != nil {
		d.fail("counter", err)
		d.power("poweroff")
		return 1
	}
	s, ok := scenarios[o.scenario]
	switch {
	case !ok:
		d.fail("scenario", fmt.Errorf("unknown scenario %q", o.scenario))
		d.power("poweroff")
		return 1
	case boot > len(s):
		// never loop: a boot the scenario did not plan for ends the run
		d.fail("unexpected-boot", fmt.Errorf("boot %d of a %d-boot scenario", boot, len(s)))
		d.power("poweroff")
		return 1
	}
	d.facts()
	s[boot-1](context.Background(), d)
	if boot == len(s) {
		d.power("poweroff")
	} else {
		d.power("reboot")
	}
	return 0
}
