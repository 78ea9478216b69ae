package winjob

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Create makes a job object. name may be empty (anonymous). With
// killOnClose, closing the last handle terminates every process in it.
func Create(name string, killOnClose bool) (windows.Handle, error) {
	var p *uint16
	if name != "" {
		var err error
		if p, err = windows.UTF16PtrFromString(name); err != nil {
			return 0, err
		}
	}
	h, err := windows.CreateJobObject(nil, p)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	if !killOnClose {
		return h, nil
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	_, err = windows.SetInformationJobObject(h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		windows.CloseHandle(h)
		return 0, fmt.Errorf("set kill-on-close on a job object: %w", err)
	}
	return h, nil
}

// Assign puts the process pid into job.
func Assign(job windows.Handle, pid uint32) error {
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return fmt.Errorf("open pid %d: %w", pid, err)
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(job, p); err != nil {
		return fmt.Errorf("assign pid %d to a job object: %w", pid, err)
	}
	return nil
}

// Resume resumes the threads of a process started with CREATE_SUSPENDED
// (its one thread, in practice).
func Resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	var te windows.ThreadEntry32
	te.Size = uint32(unsafe.Sizeof(te))
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if resumed == 0 {
		return errors.New("resume: no thread of pid " + fmt.Sprint(pid) + " found")
	}
	return nil
}
