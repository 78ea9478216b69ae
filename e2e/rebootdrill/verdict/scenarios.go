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
// touching anything, the agent back since the boot and doing its job. extra
// checks go right after the install's.
func mainChecks(ev *evidence, extra ...check) []check {
	cs := ev.harness(2)
	cs = append(cs, ev.stepOK(1, "install", "b1.install"))
	cs = append(cs, extra...)
	return append(cs,
		ev.agentStarted(1, "b1.agent-started-since-boot"),
		ev.stepOK(1, "service-up", "b1.service-up"),
		ev.stepOK(1, "tree", "b1.tree-wrapper-and-server-in-cgroup"),
		ev.verify(1, "b1.verify"),
		ev.restored(1, "b1.agent-restores"),
		ev.stepOK(1, "tree-restored", "b1.restored-tree-in-cgroup"),
		ev.bootIsNew(2, "b2.boot-is-new"),
		ev.agentStarted(2, "b2.agent-started-since-boot"),
		ev.stepOK(2, "service-up", "b2.service-healthy"),
		ev.stepOK(2, "tree", "b2.tree-wrapper-and-server-in-cgroup"),
		ev.verify(2, "b2.verify"),
		ev.cyclesBothBoots(2, "b2.cycles-both-boots"),
	)
}

func mainVerdict(ev *evidence) verdict {
	return verdict{scenario: "main", checks: mainChecks(ev)}
}

// negativeVerdict: the same drill with the agent's unit started but not
// enabled. It works until the reboot; `svc-ctl verify` must already see the
// defect before it (the unit is not enabled, and nothing else is wrong), and
// after the reboot the drill must see it through its own L1 check and verify.
func negativeVerdict(ev *evidence) verdict {
	cs := mainChecks(ev, ev.stepOK(1, "disable", "b1.disable"),
		ev.verifyFailsOnly(1, "b1.verify-sees-not-enabled", "agent installed"))
	mustFail := []string{"b1.verify", "b2.agent-started-since-boot", "b2.verify"}
	return verdict{
		scenario: "negative",
		checks:   cs,
		mustFail: mustFail,
		mustPass: func(name string) bool {
			for _, f := range mustFail {
				if name == f {
					return false
				}
			}
			return strings.HasPrefix(name, "harness.") || strings.HasPrefix(name, "b1.") || name == "b2.boot-is-new"
		},
	}
}

// backstopVerdict: with the agent stopped and disabled on purpose, the
// backstop timer's `svc-ctl start --all --scheduled` alone restores the
// service, before and after a reboot. Its cycles carry trigger "schedule"
// like the agent's, so "the timer did it" rests on the agent being down (no
// startup row, unit inactive) and on the timer having fired in between.
func backstopVerdict(ev *evidence) verdict {
	cs := ev.harness(2)
	var stopped time.Time
	if m, ok := ev.step(1, "agent-stop"); ok {
		stopped = time.UnixMilli(m.AtMS)
	}
	cs = append(cs,
		ev.stepOK(1, "install", "b1.install"),
		ev.stepOK(1, "install-backstop", "b1.install-backstop"),
		ev.stepOK(1, "service-up", "b1.service-up"),
		ev.stepOK(1, "agent-stop", "b1.agent-stop"),
		ev.stepOK(1, "agent-disable", "b1.agent-disable"),
		ev.agentDown(1, "units", "b1.agent-down", true),
		ev.timerRestored(1, "b1.timer-restores"),
		ev.agentDown(1, "units-after", "b1.agent-still-down", true),
		ev.noAgentSince(stopped.Add(clockSlack), "b1.no-agent-after-stop", "the agent was stopped"),
		ev.bootIsNew(2, "b2.boot-is-new"),
		ev.agentDown(2, "units", "b2.agent-down", true),
		ev.noAgentIn(2, "b2.no-agent-since-boot"),
		ev.stepOK(2, "service-up", "b2.service-healthy"),
		ev.timerStarted(2, "b2.timer-starts"),
	)
	return verdict{scenario: "backstop", checks: cs}
}

// timerStarted: after boot n, with the agent down, the backstop timer fired
// and a cycle of this boot (by the boot id its row records: a restore of
// the boot before, seconds before the reboot, is not this boot's) started
// the service before the drill saw it healthy.
func (ev *evidence) timerStarted(boot int, name string) check {
	bt, ok := ev.btime(boot)
	up, ok2 := ev.step(boot, "service-up")
	if !ok || !ok2 || !up.OK || ev.dbErr != nil {
		return fail(name, "boot %d: boot time, a healthy service or the database missing", boot)
	}
	rs := ev.startsBetween(boot, time.Time{}, time.UnixMilli(up.AtMS))
	if len(rs) == 0 {
		return fail(name, "no %s ok/started row written in boot %d (at %s) before the service was healthy", ev.job(), boot, utc(bt))
	}
	fired, c := ev.timerFired(boot, name, bt, rs[0])
	if c != nil {
		return *c
	}
	return pass(name, "boot %d at %s: the timer fired at %s, %s", boot, utc(bt), utc(fired), rs[0])
}
