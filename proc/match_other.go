//go:build !linux && !darwin && !windows

package proc

import "github.com/shirou/gopsutil/v4/process"

// isZombie uses gopsutil's status where it has one (the BSDs read kinfo_proc).
// Where it has none, the answer is "no": reading a zombie's create time or
// executable fails anyway, so Match still does not take it for alive.
func isZombie(p *process.Process) (bool, error) {
	st, err := p.Status()
	if err != nil {
		return false, nil //nolint:nilerr // status unsupported here, see above
	}
	for _, s := range st {
		if s == process.Zombie {
			return true, nil
		}
	}
	return false, nil
}

func sameCreateTime(now, recorded int64) bool { return now == recorded }

func sameExe(now, recorded string) bool { return now == recorded }
