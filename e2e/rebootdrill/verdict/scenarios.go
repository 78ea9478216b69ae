package main

import (
	"strings"
	"time"
)

// scenarios maps each drill scenario to its checks. The names say the boot
// (b1, b2) the evidence comes from.
var scenarios = map[string]func(*evidence) verdict{
	"main":     mainVerdict,
	"negative": negativeVerdict,
	"backstop": backstopVerdict,
}

// mainChecks: install, L1 and L3 before the reboot; after it, with no one
// touching anything, the agent back since the boot and doing its job.
func mainChecks(ev *evidence) []check {
	cs := ev.harness(2)
	return append(cs,
		ev.stepOK(1, "install", "b1.install"),
		ev.agentStarted(1, "b1.agent-started-since-boot"),
		ev.stepOK(1, "service-up", "b1.service-up"),
		ev.verify(1, "b1.verify"),
		ev.restored(1, "b1.agent-restores", ""),
		ev.bootIsNew(2, "b2.boot-is-new"),
		ev.agentStarted(2, "b2.agent-started-since-boot"),
		ev.stepOK(2, "service-up", "b2.service-healthy"),
		ev.verify(2, "b2.verify"),
		ev.cyclesBothBoots(2, "b2.cycles-both-boots"),
	)
}

func mainVerdict(ev *evidence) verdict {
	return verdict{scenario: "main", checks: mainChecks(ev)}
}

// negativeVerdict: the same drill with the agent's unit started but not
// enabled. It works until the reboot; after it the drill must see the defect,
// through its own L1 check and through `svc-ctl verify`.
func negativeVerdict(ev *evidence) verdict {
	cs := append(mainChecks(ev), ev.stepOK(1, "disable", "b1.disable"))
	return verdict{
		scenario: "negative",
		checks:   cs,
		mustFail: []string{"b2.agent-started-since-boot", "b2.verify"},
		mustPass: func(name string) bool {
			return strings.HasPrefix(name, "harness.") || strings.HasPrefix(name, "b1.") || name == "b2.boot-is-new"
		},
	}
}

// backstopVerdict: with the agent stopped and disabled on purpose, the
// backstop timer's `svc-ctl start --all` alone restores the service, before
// and after a reboot.
func backstopVerdict(ev *evidence) verdict {
	cs := ev.harness(2)
	var stopped, booted2 time.Time
	if m, ok := ev.step(1, "agent-stop"); ok {
		stopped = time.UnixMilli(m.AtMS)
	}
	booted2, _ = ev.btime(2)
	cs = append(cs,
		ev.stepOK(1, "install", "b1.install"),
		ev.stepOK(1, "install-backstop", "b1.install-backstop"),
		ev.stepOK(1, "service-up", "b1.service-up"),
		ev.stepOK(1, "agent-stop", "b1.agent-stop"),
		ev.stepOK(1, "agent-disable", "b1.agent-disable"),
		ev.agentDown(1, "units", "b1.agent-down", true),
		ev.restored(1, "b1.timer-restores", "manual"),
		ev.agentDown(1, "units-after", "b1.agent-still-down", true),
		ev.noAgentSince(stopped.Add(clockSlack), "b1.no-agent-after-stop", "the agent was stopped"),
		ev.bootIsNew(2, "b2.boot-is-new"),
		ev.agentDown(2, "units", "b2.agent-down", true),
		ev.noAgentSince(booted2.Add(-clockSlack), "b2.no-agent-since-boot", "boot 2"),
		ev.stepOK(2, "service-up", "b2.service-healthy"),
		ev.timerStarted(2, "b2.timer-starts"),
	)
	return verdict{scenario: "backstop", checks: cs}
}

// timerStarted: after boot n, a manual-trigger cycle (the backstop's
// `svc-ctl start --all`) started the service.
func (ev *evidence) timerStarted(boot int, name string) check {
	bt, ok := ev.btime(boot)
	if !ok || ev.dbErr != nil {
		return fail(name, "boot time or database missing")
	}
	rs := ev.starts(bt.Add(-clockSlack), "manual")
	if len(rs) == 0 {
		return fail(name, "no %s manual ok/started row since boot %d at %s", ev.job(), boot, utc(bt))
	}
	return pass(name, "%s, %s after boot %d", rs[0], rs[0].StartedAt.Sub(bt).Round(time.Second), boot)
}
