package proc

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"

	"svcctl/internal/winjob"

	"svcctl/internal/svcname"
)

// A job object per instance, named so that another svc-ctl process (a
// command-line stop, the next agent) can open it. It is created without
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: services outlive the agent. A named
// object keeps its name only while some handle to it is open, so the leader
// is given a handle of its own (see jobOwner.start); when the whole chain of
// holders is gone, the tree is found by parent links instead (descendants).

// jobName is the name of an instance job: Global\ for a system agent (one
// name space for every logon session, so a CLI in any session finds it),
// Local\ where creating a global object is not allowed (a per-user agent).
// NAME-RANDOM is svcname's rule (12 hex digits).
func jobName(name string) bool {
	return svcname.ValidWithSuffix(name, `Global\svc-ctl-`) || svcname.ValidWithSuffix(name, `Local\svc-ctl-`)
}

// Job access rights (winnt.h).
const (
	jobObjectAssignProcess = 0x0001
	jobObjectQuery         = 0x0004
	jobObjectTerminate     = 0x0008
	jobAccess              = jobObjectAssignProcess | jobObjectQuery | jobObjectTerminate | windows.SYNCHRONIZE
)

var procOpenJobObjectW = windows.NewLazySystemDLL("kernel32.dll").NewProc("OpenJobObjectW")

// createJob makes a new named job for an instance of name.
func createJob(name string) (windows.Handle, string, error) {
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return 0, "", fmt.Errorf("job name: %w", err)
	}
	base := "svc-ctl-" + name + "-" + hex.EncodeToString(rnd[:])
	var firstErr error
	for _, prefix := range []string{`Global\`, `Local\`} {
		full := prefix + base
		h, err := winjob.Create(full, false)
		if err == nil {
			return h, full, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return 0, "", fmt.Errorf("create job object: %w", firstErr)
}

// openJob opens an instance's job by the name its record gives.
func openJob(name string) (windows.Handle, error) {
	if !jobName(name) {
		return 0, fmt.Errorf("job %q is not an instance job svc-ctl creates: not used", name)
	}
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, err
	}
	r, _, e := procOpenJobObjectW.Call(uintptr(jobAccess), 0, uintptr(unsafe.Pointer(p)))
	if r == 0 {
		if errors.Is(e, windows.ERROR_FILE_NOT_FOUND) {
			return 0, fmt.Errorf("job %s: %w", name, ErrGone)
		}
		return 0, fmt.Errorf("open job %s: %w", name, e)
	}
	return windows.Handle(r), nil
}

// jobPIDs lists the processes in job (JobObjectBasicProcessIdList).
func jobPIDs(job windows.Handle) ([]int32, error) {
	for n := 64; n <= 1<<16; n *= 4 {
		// JOBOBJECT_BASIC_PROCESS_ID_LIST: two DWORDs, then ULONG_PTRs.
		buf := make([]uintptr, 1+n)
		err := windows.QueryInformationJobObject(job, windows.JobObjectBasicProcessIdList,
			uintptr(unsafe.Pointer(&buf[0])), uint32(len(buf))*uint32(unsafe.Sizeof(buf[0])), nil)
		if errors.Is(err, windows.ERROR_MORE_DATA) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list job processes: %w", err)
		}
		hdr := (*[2]uint32)(unsafe.Pointer(&buf[0]))
		count := int(hdr[1])
		pids := make([]int32, 0, count)
		for _, pid := range buf[1 : 1+min(count, n)] {
			pids = append(pids, int32(pid))
		}
		return pids, nil
	}
	return nil, errors.New("list job processes: too many")
}
