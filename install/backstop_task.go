package install

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"svcctl/winsvc"
)

// schedTask is the backstop as a Windows Task Scheduler task, registered
// with schtasks.exe from an XML definition.
type schedTask struct {
	s     Spec
	every time.Duration
}

func (schedTask) kind() string  { return "task-scheduler" }
func (schedTask) where() string { return `\` + BackstopName }

func (t schedTask) task() winsvc.Task {
	user := ""
	if t.s.User {
		user = t.s.UserID
	}
	return winsvc.Task{
		Name:        BackstopName,
		Description: "svc-ctl backstop: start every configured service that is down, independent of the agent",
		Command:     t.s.Exe,
		Arguments:   t.s.BackstopArgs(),
		Every:       t.every,
		UserID:      user,
	}
}

// paths: the task lives in Task Scheduler; its XML was temporary.
func (schedTask) paths() []string { return nil }

func (t schedTask) files() ([]File, error) {
	xml, err := winsvc.TaskXML(t.task())
	if err != nil {
		return nil, err
	}
	return []File{{Path: BackstopName + ".xml", Content: xml, Mode: 0o600, Temp: true}}, nil
}

// register writes the XML (UTF-16, as schtasks exports it) to a temporary
// file and creates the task from it; /F replaces an existing one.
func (t schedTask) register(ctx context.Context, r runner) error {
	files, err := t.files()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", BackstopName+"-*.xml")
	if err != nil {
		return fmt.Errorf("write the task definition: %w", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(winsvc.EncodeUTF16(files[0].Content)); err != nil {
		f.Close()
		return fmt.Errorf("write the task definition: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the task definition: %w", err)
	}
	_, err = r.run(ctx, "schtasks.exe", "/Create", "/TN", BackstopName, "/XML", f.Name(), "/F")
	return err
}

func (schedTask) runNow(ctx context.Context, r runner) error {
	_, err := r.run(ctx, "schtasks.exe", "/Run", "/TN", BackstopName)
	return err
}

func (schedTask) unregister(ctx context.Context, r runner) error {
	_, err := r.run(ctx, "schtasks.exe", "/Delete", "/TN", BackstopName, "/F")
	return err
}

func (schedTask) afterRemove(context.Context, runner) error { return nil }

// registered: schtasks /Query exits non-zero for a task that does not
// exist, and names the task when it does. Exit 0 without naming it is no
// answer (Wine's schtasks.exe does that for any name: it has no /Query):
// errCannotTell, never "registered".
func (schedTask) registered(ctx context.Context, r runner) (bool, error) {
	out, err := r.run(ctx, "schtasks.exe", "/Query", "/TN", BackstopName)
	switch {
	case err != nil:
		return false, nil
	case bytes.Contains(bytes.ToLower(out), []byte(strings.ToLower(BackstopName))):
		return true, nil
	}
	return false, fmt.Errorf("schtasks.exe /Query /TN %s exited 0 without naming the task: %w", BackstopName, errCannotTell)
}

func (schedTask) lastTrigger(context.Context, runner) time.Time { return time.Time{} }
