package main

import "context"

// A scenario is one function per boot; after the last boot the guest powers
// off, after any other it reboots. Each step prints its own marker; a step
// that fails does not stop the boot's remaining steps, so the verdict sees
// everything there was to see.
var scenarios = map[string][]func(context.Context, *drill){
	"main":     {firstBoot(false), laterBoot},
	"negative": {firstBoot(true), laterBoot},
	"backstop": {backstopFirstBoot, backstopLaterBoot},
}

// firstBoot installs the agent through the real command and proves L1 and L3
// before the reboot. disable turns it into the negative self-test: the agent
// runs now but is not enabled, which works exactly until the next reboot.
func firstBoot(disable bool) func(context.Context, *drill) {
	return func(ctx context.Context, d *drill) {
		d.svcctl(ctx, "install", "install", "--config", d.o.config)
		if disable {
			d.systemctl(ctx, "disable", "disable", d.o.agentUnit)
		}
		d.units(ctx, "units")
		d.serviceUp(ctx, "service-up", d.o.wait)
		d.tree(ctx, "tree", d.o.wait)
		d.verify(ctx, "verify")
		if old := d.kill("kill"); old > 0 {
			d.restored(ctx, "restored", old, d.o.wait)
			d.tree(ctx, "tree-restored", d.o.wait)
		}
		d.svcctl(ctx, "status", "status", "--json", "--config", d.o.config)
		d.svcctl(ctx, "runs", "runs", "--json", "--config", d.o.config)
	}
}

// laterBoot touches nothing: the agent must be back by itself and do its job.
func laterBoot(ctx context.Context, d *drill) {
	d.units(ctx, "units")
	d.serviceUp(ctx, "service-up", d.o.wait)
	d.tree(ctx, "tree", d.o.wait)
	d.verify(ctx, "verify")
	d.svcctl(ctx, "status", "status", "--json", "--config", d.o.config)
	d.svcctl(ctx, "runs", "runs", "--json", "--config", d.o.config)
}

// backstopFirstBoot installs the agent and the backstop timer, takes the
// agent away on purpose (stopped and disabled) and kills the service: only
// the timer's `svc-ctl start --all` can bring it back.
func backstopFirstBoot(ctx context.Context, d *drill) {
	d.svcctl(ctx, "install", "install", "--config", d.o.config)
	args := []string{"install", "--backstop"}
	if d.o.every != "" {
		args = append(args, "--every", d.o.every)
	}
	d.svcctl(ctx, "install-backstop", append(args, "--config", d.o.config)...)
	d.serviceUp(ctx, "service-up", d.o.wait)
	d.systemctl(ctx, "agent-stop", "stop", d.o.agentUnit)
	d.systemctl(ctx, "agent-disable", "disable", d.o.agentUnit)
	d.units(ctx, "units")
	if old := d.kill("kill"); old > 0 {
		d.restored(ctx, "restored", old, d.o.slowWait)
	}
	d.units(ctx, "units-after")
	d.svcctl(ctx, "runs", "runs", "--json", "--config", d.o.config)
}

// backstopLaterBoot: the agent stays disabled; the timer alone must start the
// service after the reboot.
func backstopLaterBoot(ctx context.Context, d *drill) {
	d.units(ctx, "units")
	d.serviceUp(ctx, "service-up", d.o.slowWait)
	d.units(ctx, "units-after")
	d.svcctl(ctx, "runs", "runs", "--json", "--config", d.o.config)
}
