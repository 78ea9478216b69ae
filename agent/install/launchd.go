package install

import (
	"fmt"
	"strings"
	"time"
)

// renderLaunchdAgent is the agent's plist: a LaunchDaemon (system, at boot)
// or a LaunchAgent (--user, at login). RunAtLoad + KeepAlive: started at once
// and whenever it exits. ExitTimeOut: launchd waits drain_timeout plus a
// margin before SIGKILL. AbandonProcessGroup: launchd must not kill the
// services the agent spawned when the agent exits.
func renderLaunchdAgent(s Spec) string {
	p := newPlist()
	p.str("Label", ServiceName)
	p.args("ProgramArguments", s.Exe, s.AgentArgs())
	p.boolean("RunAtLoad", true)
	p.boolean("KeepAlive", true)
	p.integer("ThrottleInterval", 5)
	p.comment(fmt.Sprintf("the agent lets in-flight runs finish for drain_timeout (%s); launchd waits longer", s.DrainTimeout))
	p.integer("ExitTimeOut", seconds(s.StopTimeout()))
	p.boolean("AbandonProcessGroup", true)
	p.str("StandardOutPath", s.stdioLogPath("darwin"))
	p.str("StandardErrorPath", s.stdioLogPath("darwin"))
	return p.end()
}

// renderLaunchdBackstop is the backstop's plist: runs `start --all` every
// StartInterval seconds (launchd runs a missed interval once after wake).
func renderLaunchdBackstop(s Spec, every time.Duration) string {
	p := newPlist()
	p.str("Label", BackstopName)
	p.args("ProgramArguments", s.Exe, s.BackstopArgs())
	p.integer("StartInterval", seconds(every))
	p.boolean("RunAtLoad", false)
	p.comment("the services it starts must outlive this job")
	p.boolean("AbandonProcessGroup", true)
	p.str("StandardOutPath", s.stdioLogPath("darwin"))
	p.str("StandardErrorPath", s.stdioLogPath("darwin"))
	return p.end()
}

// plist writes a flat property list dictionary.
type plist struct{ b strings.Builder }

func newPlist() *plist {
	p := &plist{}
	p.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
`)
	p.b.WriteString("<!-- " + header + " -->\n")
	p.b.WriteString("<plist version=\"1.0\">\n<dict>\n")
	return p
}

func (p *plist) key(k string) { fmt.Fprintf(&p.b, "\t<key>%s</key>\n", k) }
func (p *plist) comment(c string) {
	// "--" may not appear inside an XML comment.
	fmt.Fprintf(&p.b, "\t<!-- %s -->\n", strings.ReplaceAll(c, "--", "- -"))
}
func (p *plist) str(k, v string) { p.key(k); fmt.Fprintf(&p.b, "\t<string>%s</string>\n", xmlText(v)) }
func (p *plist) integer(k string, v int64) {
	p.key(k)
	fmt.Fprintf(&p.b, "\t<integer>%d</integer>\n", v)
}
func (p *plist) boolean(k string, v bool) {
	p.key(k)
	if v {
		p.b.WriteString("\t<true/>\n")
	} else {
		p.b.WriteString("\t<false/>\n")
	}
}

func (p *plist) args(k, exe string, args []string) {
	p.key(k)
	p.b.WriteString("\t<array>\n")
	for _, a := range append([]string{exe}, args...) {
		fmt.Fprintf(&p.b, "\t\t<string>%s</string>\n", xmlText(a))
	}
	p.b.WriteString("\t</array>\n")
}

func (p *plist) end() string {
	p.b.WriteString("</dict>\n</plist>\n")
	return p.b.String()
}
