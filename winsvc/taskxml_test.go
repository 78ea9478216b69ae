package winsvc

import (
	"encoding/xml"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

func sampleTask() Task {
	return Task{
		Name:        "svc-ctl-backstop",
		Description: "svc-ctl backstop <test> & more",
		Command:     `C:\Program Files\svc-ctl\svc-ctl.exe`,
		Arguments:   []string{"start", "--all", "--config", `C:\ProgramData\svc-ctl\svc-ctl.toml`},
		Every:       10 * time.Minute,
	}
}

func TestTaskXMLIsWellFormed(t *testing.T) {
	out, err := TaskXML(sampleTask())
	if err != nil {
		t.Fatal(err)
	}
	// encoding/xml refuses the UTF-16 declaration without a CharsetReader;
	// the body is what we check.
	body := strings.TrimPrefix(out, `<?xml version="1.0" encoding="UTF-16"?>`+"\n")
	var v struct {
		Settings struct {
			MultipleInstancesPolicy string
			StartWhenAvailable      bool
			Hidden                  bool
			ExecutionTimeLimit      string
		}
		RegistrationInfo struct{ Description string }
		Triggers         struct {
			TimeTrigger struct{ Repetition struct{ Interval string } }
		}
		Actions struct {
			Exec struct{ Command, Arguments string }
		}
	}
	if err := xml.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("task XML does not parse: %v\n%s", err, out)
	}
	s := v.Settings
	if s.MultipleInstancesPolicy != "IgnoreNew" || !s.StartWhenAvailable || !s.Hidden || s.ExecutionTimeLimit != "PT10M" {
		t.Errorf("settings = %+v", s)
	}
	if v.Triggers.TimeTrigger.Repetition.Interval != "PT10M" {
		t.Errorf("interval = %q", v.Triggers.TimeTrigger.Repetition.Interval)
	}
	if v.RegistrationInfo.Description != "svc-ctl backstop <test> & more" {
		t.Errorf("description did not round-trip: %q", v.RegistrationInfo.Description)
	}
	if want := `start --all --config C:\ProgramData\svc-ctl\svc-ctl.toml`; v.Actions.Exec.Arguments != want {
		t.Errorf("arguments = %q, want %q", v.Actions.Exec.Arguments, want)
	}
}

func TestTaskXMLRefusesBadTasks(t *testing.T) {
	for name, mod := range map[string]func(*Task){
		"seconds":    func(t *Task) { t.Every = 90 * time.Second },
		"too short":  func(t *Task) { t.Every = 30 * time.Second },
		"too long":   func(t *Task) { t.Every = 32 * 24 * time.Hour },
		"no command": func(t *Task) { t.Command = "" },
		"bad name":   func(t *Task) { t.Name = `a\b` },
	} {
		task := sampleTask()
		mod(&task)
		if _, err := TaskXML(task); err == nil {
			t.Errorf("%s: TaskXML accepted %+v", name, task)
		}
	}
}

func TestISODuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute:                "PT1M",
		10 * time.Minute:           "PT10M",
		90 * time.Minute:           "PT1H30M",
		24 * time.Hour:             "P1D",
		26*time.Hour + time.Minute: "P1DT2H1M",
	} {
		if got := isoDuration(d); got != want {
			t.Errorf("isoDuration(%s) = %s, want %s", d, got, want)
		}
	}
}

func TestEncodeUTF16(t *testing.T) {
	b := EncodeUTF16("a\nä")
	if b[0] != 0xFF || b[1] != 0xFE {
		t.Fatalf("no UTF-16LE byte order mark: % x", b[:2])
	}
	units := make([]uint16, 0, (len(b)-2)/2)
	for i := 2; i+1 < len(b); i += 2 {
		units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
	}
	if got := string(utf16.Decode(units)); got != "a\r\nä" {
		t.Errorf("decoded %q, want CRLF line ends and the text intact", got)
	}
}
