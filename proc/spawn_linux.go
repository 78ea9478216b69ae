package proc

import (
	"golang.org/x/sys/unix"

	"svcctl/internal/child"
	"svcctl/internal/runas"
)

// linuxOwner starts the leader in a session of its own (setsid: no
// controlling terminal, no tie to the agent, and the session id that owns
// its tree) and, when the caller named a cgroup parent, inside a new cgroup
// of its own from its first instruction (clone3 CLONE_INTO_CGROUP).
type linuxOwner struct {
	dir   string // the instance cgroup, "" if none
	fd    int
	note  []string
	runAs *runas.Identity
}

func prepareOwner(s SpawnSpec) (owner, error) {
	o := &linuxOwner{fd: -1, runAs: s.RunAs}
	if s.Cgroup == "" {
		return o, nil
	}
	dir, fd, err := newInstanceCgroup(s.Cgroup, nameOf(s))
	if err != nil {
		o.note = append(o.note, "no cgroup ("+err.Error()+"): the session alone owns the tree")
		return o, nil
	}
	o.dir, o.fd = dir, fd
	return o, nil
}

func (o *linuxOwner) start(newCmd func() *child.Cmd) (*child.Cmd, error) {
	cmd := newCmd()
	cmd.SysProcAttr = sessionAttr(o.runAs)
	if o.fd < 0 {
		return cmd, cmd.Start()
	}
	cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, o.fd
	err := cmd.Start()
	if err == nil {
		return cmd, nil
	}
	// clone3 into a cgroup is refused (a kernel before 5.7, a seccomp
	// filter): start plainly, then move the leader in. Anything it forks
	// before the move stays outside the cgroup, still in the session.
	cmd = newCmd()
	cmd.SysProcAttr = sessionAttr(o.runAs)
	if err := cmd.Start(); err != nil {
		return cmd, err
	}
	if merr := moveToCgroup(o.dir, cmd.Process.Pid); merr != nil {
		o.note = append(o.note, "no cgroup ("+merr.Error()+"): the session alone owns the tree")
		removeCgroup(o.dir)
		o.dir = ""
	}
	return cmd, nil
}

func (o *linuxOwner) cgroup() string  { return o.dir }
func (o *linuxOwner) job() string     { return "" }
func (o *linuxOwner) notes() []string { return o.note }
func (o *linuxOwner) abandon()        { removeCgroup(o.dir) }

func (o *linuxOwner) close() {
	if o.fd >= 0 {
		unix.Close(o.fd)
		o.fd = -1
	}
}
