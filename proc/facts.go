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
	f.ListenPorts = listenPorts(p)
	// Facts of a process that ended while they were read describe nobody.
	if !stillOurs(id) {
		return nil, fmt.Errorf("facts of pid %d: %w", id.PID, ErrGone)
	}
	return f, nil
}

// listenPorts returns the TCP ports p listens on, sorted and deduplicated
// (a dual-stack listener shows up once for IPv4 and once for IPv6).
func listenPorts(p *process.Process) []uint32 {
	ctx, cancel := context.WithTimeout(context.Background(), factsTimeout)
	defer cancel()
	conns, err := p.ConnectionsWithContext(ctx)
	if err != nil {
		return nil
	}
	var ports []uint32
	for _, c := range conns {
		if c.Status == "LISTEN" {
			ports = append(ports, c.Laddr.Port)
		}
	}
	slices.Sort(ports)
	return slices.Compact(ports)
}
