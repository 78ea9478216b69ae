package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"svcctl/bench/internal/benchkit"
	"svcctl/internal/fsutil"
	"svcctl/state"
)

// fileWrites times the two files every cycle rewrites (state.json and
// watchdog.last.json, with their real contents) written as the agent writes
// them — fsutil.WriteFileAtomic: temp file, fsync, rename, directory fsync —
// and, for comparison, the same temp-file-and-rename without either fsync.
func fileWrites(ctx context.Context, k *benchkit.Kit, s benchkit.Setup, name string) error {
	p := state.Paths{State: s.State}
	dir, err := k.SubDir("writes")
	if err != nil {
		return err
	}
	for _, src := range []string{p.StateFile(name), p.WatchdogLast()} {
		data, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("read %s: %w", src, err)
		}
		dst := filepath.Join(dir, filepath.Base(src))
		base := fmt.Sprintf("  %s (%d bytes)", filepath.Base(src), len(data))
		if err := timeWrite(ctx, k, base+" atomic + fsync", func() error { return fsutil.WriteFileAtomic(dst, data, 0o600) }); err != nil {
			return err
		}
		if err := timeWrite(ctx, k, base+" atomic, no fsync", func() error { return renameNoSync(dst, data) }); err != nil {
			return err
		}
	}
	return nil
}

func timeWrite(ctx context.Context, k *benchkit.Kit, what string, fn func() error) error {
	const reps = 100
	var walls, cpus []float64
	for range k.Common.Trials {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		cpu0, err := benchkit.SelfCPU()
		if err != nil {
			return err
		}
		t0 := time.Now()
		for range reps {
			if err := fn(); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
		}
		wall := time.Since(t0)
		cpu1, _ := benchkit.SelfCPU()
		walls = append(walls, benchkit.Ms(wall)/reps)
		cpus = append(cpus, benchkit.Ms(cpu1-cpu0)/reps)
	}
	benchkit.Figure(what+", wall", benchkit.Summarize(walls), "ms", 2, "")
	benchkit.Figure(what+", CPU", benchkit.Summarize(cpus), "ms", 2, "")
	return nil
}

// renameNoSync is WriteFileAtomic without the two fsyncs: still atomic for
// readers, not durable across a power loss.
func renameNoSync(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
