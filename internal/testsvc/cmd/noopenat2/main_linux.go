// Command noopenat2 runs a program with the openat2 system call answering
// ENOSYS, as on a kernel before 5.6 or under a seccomp profile that does
// not know the call (some container runtimes): svc-ctl's pinned log
// directories then take the element-by-element walk instead. The tests of
// e2e/privileged run the agent both ways. It is never linked into svc-ctl.
//
//	noopenat2 PROGRAM [ARGS...]
package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const sysOpenat2 = 437 // the same number on every Linux architecture

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: noopenat2 PROGRAM [ARGS...]")
		os.Exit(2)
	}
	path, err := exec.LookPath(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "noopenat2:", err)
		os.Exit(127)
	}
	// The filter is installed on this thread, which then execs: the new
	// program's only thread inherits it.
	runtime.LockOSThread()
	if err := filterOpenat2(); err != nil {
		fmt.Fprintln(os.Stderr, "noopenat2: install the seccomp filter:", err)
		os.Exit(1)
	}
	err = syscall.Exec(path, os.Args[1:], os.Environ())
	fmt.Fprintln(os.Stderr, "noopenat2: exec:", err)
	os.Exit(127)
}

func filterOpenat2() error {
	arch, ok := map[string]uint32{"amd64": 0xc000003e, "arm64": 0xc00000b7}[runtime.GOARCH]
	if !ok {
		return fmt.Errorf("no audit architecture known for %s", runtime.GOARCH)
	}
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	prog := []unix.SockFilter{
		{Code: ld, K: 4},                   // seccomp_data.arch
		{Code: jeq, K: arch, Jt: 0, Jf: 3}, // another architecture: allow
		{Code: ld, K: 0},                   // seccomp_data.nr
		{Code: jeq, K: sysOpenat2, Jt: 0, Jf: 1},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}
