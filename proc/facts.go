package proc

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// Facts is what a snapshot records about a running service process.
type Facts struct {
	PID         int32    `json:"pid"`
	Status      string   `json:"status"`      // gopsutil's status ("running", "sleep", ...); empty where unknown
	CPUPercent  float64  `json:"cpu_percent"` // average since the process started, 100 = one core
	RSSBytes    uint64   `json:"rss_bytes"`
	NumThreads  int32    `json:"num_threads"`
	ListenPorts []uint32 `json:"listen_ports"` // TCP ports it listens on, sorted
	CreateTime  int64    `json:"create_time_ms"`
	Exe         string   `json:"exe"`
}

// factsTimeout bounds the socket listing (darwin runs lsof for it).
const factsTimeout = 3 * time.Second

// FactsOf gathers facts about id's process, only when Match holds: a
// mismatch gives ErrNotOurs, no process ErrGone. Each fact is best effort:
// one that cannot be read is left zero, since a partial picture is still
// evidence.
func FactsOf(id Identity) (*Facts, error) {
	st, err := inspect(id)
	switch {
	case err != nil:
		return nil, fmt.Errorf("facts of pid %d: %w", id.PID, err)
	case st == stateGone:
		return nil, fmt.Errorf("facts of pid %d: %w", id.PID, ErrGone)
	case st == stateNotOurs:
		return nil, fmt.Errorf("facts of pid %d: %w", id.PID, ErrNotOurs)
	}
	f := factsOf(id, true)
	// Facts of a process that ended while they were read describe nobody.
	if !stillOurs(id) {
		return nil, fmt.Errorf("facts of pid %d: %w", id.PID, ErrGone)
	}
	return f, nil
}

func factsOf(id Identity, ports bool) *Facts {
	p := &process.Process{Pid: id.PID}
	f := &Facts{PID: id.PID, CreateTime: id.CreateTime, Exe: id.Exe}
	if s, err := p.Status(); err == nil && len(s) > 0 {
		f.Status = s[0]
	}
	f.CPUPercent, _ = p.CPUPercent()
	if m, err := p.MemoryInfo(); err == nil {
		f.RSSBytes = m.RSS
	}
	f.NumThreads, _ = p.NumThreads()
	if ports {
		f.ListenPorts = listenPorts(p)
	}
	return f
}

// TreeFacts is an instance as it is now, for status and snapshots.
type TreeFacts struct {
	Leader      int32    `json:"leader_pid"`
	LeaderAlive bool     `json:"leader_alive"`
	Count       int      `json:"processes"`
	RSSBytes    uint64   `json:"rss_bytes"`   // resident memory of the whole tree
	CPUSeconds  float64  `json:"cpu_seconds"` // user+system CPU of the live members since each started
	Oldest      int64    `json:"oldest_ms"`   // create time of the oldest live member (its uptime), ms since the epoch
	ListenPorts []uint32 `json:"listen_ports,omitempty"`
	Members     []Facts  `json:"members,omitempty"`
	Via         []string `json:"via,omitempty"`
}

// TreeFactsOf gathers the facts of every live member of inst's tree.
// ports also lists listening sockets (slow on darwin: lsof). An instance
// with no live process gives ErrGone.
func TreeFactsOf(inst Instance, ports bool) (*TreeFacts, error) {
	t, err := Members(inst)
	if err != nil {
		return nil, err
	}
	return FactsOfTree(inst, t, ports)
}

// FactsOfTree is TreeFactsOf for a tree the caller listed already.
func FactsOfTree(inst Instance, t Tree, ports bool) (*TreeFacts, error) {
	if t.Len() == 0 {
		return nil, fmt.Errorf("facts of pid %d: %w", inst.PID, ErrGone)
	}
	tf := &TreeFacts{Leader: inst.PID, LeaderAlive: t.LeaderAlive(), Count: t.Len(), Via: t.Via}
	for _, m := range t.Members {
		f := factsOf(m.Identity, ports)
		tf.RSSBytes += f.RSSBytes
		if ts, err := (&process.Process{Pid: m.PID}).Times(); err == nil {
			tf.CPUSeconds += ts.User + ts.System
		}
		if tf.Oldest == 0 || (m.CreateTime > 0 && m.CreateTime < tf.Oldest) {
			tf.Oldest = m.CreateTime
		}
		tf.ListenPorts = append(tf.ListenPorts, f.ListenPorts...)
		tf.Members = append(tf.Members, *f)
	}
	slices.Sort(tf.ListenPorts)
	tf.ListenPorts = slices.Compact(tf.ListenPorts)
	return tf, nil
}

// listenPorts returns the TCP ports p listens on, sorted and deduplicated
// (a dual-stack listener shows up once for IPv4 and once for IPv6).
func listenPorts(p *process.Process) []uint32 {
	ctx, cancel := context.WithTimeout(context.Background(), factsTimeout)
	defer cancel()
	ls, err := listenersOf(ctx, p)
	if err != nil {
		return nil
	}
	var ports []uint32
	for _, l := range ls {
		ports = append(ports, l.port)
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}

// Listens reports whether m listens on TCP port (its own sockets, not
// every process's). An error reading them is false.
func Listens(m Member, port uint32) bool {
	if !listens(m.PID, port) {
		return false
	}
	return stillOurs(m.Identity) // the sockets read were its own, not a successor's
}
