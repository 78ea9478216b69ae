package benchkit

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
)

// Subject is one program in a steady-state run: its own processes (never
// the services it supervises) and the floor it is read against.
type Subject struct {
	Name string
	// Floor names the subject whose figures this one's ratios divide by;
	// "" for a floor itself.
	Floor string
	PIDs  []int
}

// Sample is one look at a subject: resident memory from /proc/PID/status
// and smaps_rollup, CPU from the threads' schedstat and, as a check, from
// /proc/PID/stat's ticks. Sums over the subject's processes.
type Sample struct {
	At                          time.Duration // since the window began
	RSS, Anon, File, Shmem, PSS int64
	CPU, Ticks                  time.Duration
}

// SteadyOptions say how long to watch and how often to look.
type SteadyOptions struct {
	Window time.Duration // the whole run; steady state is its last minute
	Every  time.Duration // between samples
	// Samples, when set, gets every sample as a CSV line as it is taken
	// (so a long run leaves its figures even if it is stopped).
	Samples io.Writer
	// Progress, when set, gets a line a minute.
	Progress io.Writer
}

// Steady is one subject's figures over a run.
type Steady struct {
	Subject Subject
	// Median of the samples in the last minute of the window (steady state).
	RSS, Anon, File, Shmem, PSS float64 // MiB
	// CPU over the whole window, per minute (ms): schedstat, and ticks.
	CPUPerMin, TicksPerMin float64
	// GrowthRSS and GrowthAnon: the last minute's median less minute 4–5's
	// (MiB); set when the window is at least 10 minutes.
	GrowthRSS, GrowthAnon float64
	HasGrowth             bool
	Samples               []Sample
}

// RunSteady samples every subject every o.Every for o.Window, all in the
// same window (so a change of the machine's load falls on all of them),
// and returns each one's steady state.
func RunSteady(ctx context.Context, subjects []Subject, o SteadyOptions) ([]Steady, error) {
	if o.Every <= 0 {
		o.Every = 5 * time.Second
	}
	if o.Samples != nil {
		fmt.Fprintln(o.Samples, "at_s,subject,rss_kib,anon_kib,file_kib,shmem_kib,pss_kib,cpu_ns,ticks_ms")
	}
	out := make([]Steady, len(subjects))
	for i, s := range subjects {
		out[i].Subject = s
	}
	t0 := time.Now()
	look := func() error {
		at := time.Since(t0)
		for i := range out {
			smp, err := sampleOf(out[i].Subject.PIDs)
			if err != nil {
				return fmt.Errorf("%s at %s: %w", out[i].Subject.Name, at.Round(time.Second), err)
			}
			smp.At = at
			out[i].Samples = append(out[i].Samples, smp)
			if o.Samples != nil {
				fmt.Fprintf(o.Samples, "%.1f,%s,%d,%d,%d,%d,%d,%d,%d\n", at.Seconds(), out[i].Subject.Name,
					smp.RSS>>10, smp.Anon>>10, smp.File>>10, smp.Shmem>>10, smp.PSS>>10, smp.CPU.Nanoseconds(), smp.Ticks.Milliseconds())
			}
		}
		return nil
	}
	if err := look(); err != nil {
		return nil, err
	}
	tick := time.NewTicker(o.Every)
	defer tick.Stop()
	lastMinute := 0
	for time.Since(t0) < o.Window {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		if err := look(); err != nil {
			return nil, err
		}
		if m := int(time.Since(t0) / time.Minute); o.Progress != nil && m > lastMinute {
			lastMinute = m
			fmt.Fprintf(o.Progress, "minute %d of %s\n", m, o.Window)
		}
	}
	for i := range out {
		summarizeSteady(&out[i], o.Window)
	}
	return out, nil
}

func sampleOf(pids []int) (Sample, error) {
	var s Sample
	for _, pid := range pids {
		m, err := MemOf(pid)
		if err != nil {
			return s, err
		}
		pss, err := PSSOf(pid)
		if err != nil {
			return s, err
		}
		c, err := SchedCPUOf(pid)
		if err != nil {
			return s, err
		}
		t, err := CPUOf(pid)
		if err != nil {
			return s, err
		}
		s.RSS, s.Anon, s.File, s.Shmem, s.PSS = s.RSS+m.RSS, s.Anon+m.Anon, s.File+m.File, s.Shmem+m.Shmem, s.PSS+pss
		s.CPU, s.Ticks = s.CPU+c, s.Ticks+t
	}
	return s, nil
}

// summarizeSteady fills the medians of the last minute, the CPU per minute
// over the window and, for a window of 10 minutes or more, the growth from
// minute 5.
func summarizeSteady(st *Steady, window time.Duration) {
	ss := st.Samples
	if len(ss) < 2 {
		return
	}
	last := between(ss, window-time.Minute, window+time.Hour)
	med := func(sel []Sample, f func(Sample) int64) float64 {
		xs := make([]float64, len(sel))
		for i, s := range sel {
			xs[i] = mibOf(f(s))
		}
		return Summarize(xs).Median
	}
	st.RSS = med(last, func(s Sample) int64 { return s.RSS })
	st.Anon = med(last, func(s Sample) int64 { return s.Anon })
	st.File = med(last, func(s Sample) int64 { return s.File })
	st.Shmem = med(last, func(s Sample) int64 { return s.Shmem })
	st.PSS = med(last, func(s Sample) int64 { return s.PSS })
	first, end := ss[0], ss[len(ss)-1]
	minutes := (end.At - first.At).Minutes()
	st.CPUPerMin = Ms(end.CPU-first.CPU) / minutes
	st.TicksPerMin = Ms(end.Ticks-first.Ticks) / minutes
	if window >= 10*time.Minute {
		m5 := between(ss, 4*time.Minute, 5*time.Minute)
		st.GrowthRSS = st.RSS - med(m5, func(s Sample) int64 { return s.RSS })
		st.GrowthAnon = st.Anon - med(m5, func(s Sample) int64 { return s.Anon })
		st.HasGrowth = true
	}
}

// between is the samples taken in (from, to].
func between(ss []Sample, from, to time.Duration) []Sample {
	var out []Sample
	for _, s := range ss {
		if s.At > from && s.At <= to {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		out = ss[len(ss)-1:]
	}
	return out
}

func mibOf(b int64) float64 { return float64(b) / (1 << 20) }

// SteadyTable is the run as a markdown table: each subject's steady state
// and its ratios to its floor.
func SteadyTable(rs []Steady, window time.Duration) string {
	byName := map[string]*Steady{}
	for i := range rs {
		byName[rs[i].Subject.Name] = &rs[i]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| program | RSS MiB | RssAnon | RssFile | RssShmem | PSS | CPU ms/min | RSS ÷ floor | CPU ÷ floor |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		rr, cr := "—", "—"
		if f := byName[r.Subject.Floor]; f != nil {
			rr, cr = ratio(r.RSS, f.RSS), ratio(r.CPUPerMin, f.CPUPerMin)
		}
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.0f (ticks %.0f) | %s | %s |\n",
			r.Subject.Name, r.RSS, r.Anon, r.File, r.Shmem, r.PSS, r.CPUPerMin, r.TicksPerMin, rr, cr)
	}
	fmt.Fprintf(&b, "\nMemory: the median of the samples in the last minute of %s; CPU: the threads' schedstat over the whole window (ticks: /proc/PID/stat, 10 ms steps, as a check).\n", window)
	var growth []string
	for _, r := range rs {
		if r.HasGrowth {
			growth = append(growth, fmt.Sprintf("%s %+.2f MiB RSS (RssAnon %+.2f)", r.Subject.Name, r.GrowthRSS, r.GrowthAnon))
		}
	}
	if len(growth) > 0 {
		fmt.Fprintf(&b, "Growth from minute 5 to the last minute: %s.\n", strings.Join(growth, "; "))
	}
	return b.String()
}

// ratio is x/floor, or what the floor was when it is too small to divide by.
func ratio(x, floor float64) string {
	if floor < 0.5 {
		return fmt.Sprintf("(floor %.1f)", floor)
	}
	return fmt.Sprintf("%.2f×", x/floor)
}
