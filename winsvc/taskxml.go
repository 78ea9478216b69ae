package winsvc

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"
)

// SystemUserID is the SID of LocalSystem, the account a system backstop task
// runs as.
const SystemUserID = "S-1-5-18"

// Task is a Task Scheduler task that runs one command at a fixed interval.
type Task struct {
	Name        string // registered as \Name
	Description string
	Command     string        // absolute path of the program
	Arguments   []string      // argv after the program; quoted here, never run through a shell
	Every       time.Duration // repetition interval: 1 minute to 31 days, whole minutes
	// UserID is "" or SystemUserID for a task that runs as LocalSystem whether
	// anyone is logged on or not; otherwise DOMAIN\user, and the task runs only
	// while that user is logged on (a per-user backstop).
	UserID string
}

// TaskXML renders t as a Task Scheduler 1.2 definition, for
// `schtasks.exe /Create /XML FILE`. It is a pure function of t. The settings
// that make it a backstop: StartWhenAvailable (a run missed while the host was
// off or asleep runs as soon as it can), MultipleInstancesPolicy IgnoreNew (a
// slow run is never doubled), Hidden, no battery conditions, and an execution
// limit of one interval.
func TaskXML(t Task) (string, error) {
	if err := t.validate(); err != nil {
		return "", err
	}
	var b strings.Builder
	w := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	w(`<?xml version="1.0" encoding="UTF-16"?>`)
	w(`<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">`)
	w(`  <RegistrationInfo>`)
	w(`    <Description>%s</Description>`, esc(t.Description))
	w(`    <URI>\%s</URI>`, esc(t.Name))
	w(`  </RegistrationInfo>`)
	writeTriggers(w, t)
	writePrincipal(w, t)
	writeTaskSettings(w, t)
	w(`  <Actions Context="Author">`)
	w(`    <Exec>`)
	w(`      <Command>%s</Command>`, esc(t.Command))
	w(`      <Arguments>%s</Arguments>`, esc(Args(t.Arguments...)))
	w(`    </Exec>`)
	w(`  </Actions>`)
	w(`</Task>`)
	return b.String(), nil
}

func (t Task) validate() error {
	switch {
	case t.Name == "" || strings.ContainsAny(t.Name, `\/:*?"<>|`):
		return fmt.Errorf("winsvc: task name %q: use letters, digits, '-' and '.'", t.Name)
	case t.Command == "":
		return fmt.Errorf("winsvc: task %q has no command", t.Name)
	case t.Every < time.Minute || t.Every > 31*24*time.Hour || t.Every%time.Minute != 0:
		return fmt.Errorf("winsvc: task interval %s: Task Scheduler repeats in whole minutes, from 1m to 31 days", t.Every)
	}
	return nil
}

// writeTriggers: one time trigger from a fixed date in the past, repeating
// forever; with StartWhenAvailable the first run after registration or after
// boot comes at the next interval boundary, or at once if one was missed.
func writeTriggers(w func(string, ...any), t Task) {
	w(`  <Triggers>`)
	w(`    <TimeTrigger>`)
	w(`      <Repetition>`)
	w(`        <Interval>%s</Interval>`, isoDuration(t.Every))
	w(`        <StopAtDurationEnd>false</StopAtDurationEnd>`)
	w(`      </Repetition>`)
	w(`      <StartBoundary>2000-01-01T00:00:00</StartBoundary>`)
	w(`      <Enabled>true</Enabled>`)
	w(`    </TimeTrigger>`)
	w(`  </Triggers>`)
}

func writePrincipal(w func(string, ...any), t Task) {
	w(`  <Principals>`)
	w(`    <Principal id="Author">`)
	if t.UserID == "" || t.UserID == SystemUserID {
		w(`      <UserId>%s</UserId>`, SystemUserID)
		w(`      <RunLevel>HighestAvailable</RunLevel>`)
	} else {
		w(`      <UserId>%s</UserId>`, esc(t.UserID))
		w(`      <LogonType>InteractiveToken</LogonType>`)
		w(`      <RunLevel>LeastPrivilege</RunLevel>`)
	}
	w(`    </Principal>`)
	w(`  </Principals>`)
}

func writeTaskSettings(w func(string, ...any), t Task) {
	w(`  <Settings>`)
	w(`    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>`)
	w(`    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>`)
	w(`    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>`)
	w(`    <AllowHardTerminate>true</AllowHardTerminate>`)
	w(`    <StartWhenAvailable>true</StartWhenAvailable>`)
	w(`    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>`)
	w(`    <IdleSettings>`)
	w(`      <StopOnIdleEnd>false</StopOnIdleEnd>`)
	w(`      <RestartOnIdle>false</RestartOnIdle>`)
	w(`    </IdleSettings>`)
	w(`    <AllowStartOnDemand>true</AllowStartOnDemand>`)
	w(`    <Enabled>true</Enabled>`)
	w(`    <Hidden>true</Hidden>`)
	w(`    <RunOnlyIfIdle>false</RunOnlyIfIdle>`)
	w(`    <WakeToRun>false</WakeToRun>`)
	w(`    <ExecutionTimeLimit>%s</ExecutionTimeLimit>`, isoDuration(t.Every))
	w(`    <Priority>7</Priority>`)
	w(`  </Settings>`)
}

// isoDuration writes d (whole minutes) as an ISO 8601 duration: PT10M, PT1H30M, P1DT2H.
func isoDuration(d time.Duration) string {
	days := int64(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	h, m := int64(d/time.Hour), int64((d%time.Hour)/time.Minute)
	var b strings.Builder
	b.WriteString("P")
	if days > 0 {
		fmt.Fprintf(&b, "%dD", days)
	}
	if h > 0 || m > 0 {
		b.WriteString("T")
		if h > 0 {
			fmt.Fprintf(&b, "%dH", h)
		}
		if m > 0 {
			fmt.Fprintf(&b, "%dM", m)
		}
	}
	return b.String()
}

func esc(s string) string {
	var b bytes.Buffer
	_ = xml.EscapeText(&b, []byte(s)) // writing to a bytes.Buffer cannot fail
	return b.String()
}

// EncodeUTF16 encodes s as UTF-16LE with a byte order mark and CRLF line
// ends: the form schtasks.exe itself exports and reliably reads back.
func EncodeUTF16(s string) []byte {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
	units := utf16.Encode([]rune(s))
	out := make([]byte, 2, 2+2*len(units))
	out[0], out[1] = 0xFF, 0xFE
	for _, u := range units {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}
