package snapshot

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkAppend measures one typical pre-restart snapshot, fsyncs included.
func BenchmarkAppend(b *testing.B) {
	path := filepath.Join(b.TempDir(), "snapshots.jsonl")
	e := sample(0)
	for b.Loop() {
		if err := Append(path, e); err != nil {
			b.Fatal(err)
		}
	}
}

// The log cap's and the rotation's own cost, per operation (the file
// system's work, mostly): docs/benchmarks.md, "Pinned log directories".

// BenchmarkCapLog is one size rotation of a 1 MiB log over a 512 KiB cap
// without fsyncs (a flood's cut): copy the newest 512 KiB, rename, truncate.
func BenchmarkCapLog(b *testing.B) {
	log := filepath.Join(b.TempDir(), "runtime.log")
	l := logAt(b, log)
	chunk := bytes.Repeat([]byte("a line of service output, 48 bytes long......\n"), 1<<20/48)
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(log, chunk, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if c, err := CapLogWith(l, 512<<10, CapOptions{Quick: true}); err != nil || c == nil {
			b.Fatal(c, err)
		}
	}
}

// BenchmarkCapLogLook is the cap's look at a log within its cap: one stat,
// nothing cut (what the cap loop does every 500 ms per quiet service).
func BenchmarkCapLogLook(b *testing.B) {
	log := filepath.Join(b.TempDir(), "runtime.log")
	if err := os.WriteFile(log, []byte("small\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	l := logAt(b, log)
	for b.Loop() {
		if c, err := CapLogWith(l, 512<<10, CapOptions{}); err != nil || c != nil {
			b.Fatal(c, err)
		}
	}
}

// BenchmarkRotateLog is a restart's rotation of a small log to its prev,
// fsyncs included.
func BenchmarkRotateLog(b *testing.B) {
	log := filepath.Join(b.TempDir(), "runtime.log")
	l := logAt(b, log)
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(log, []byte("the failing run\n"), 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := RotateLog(l); err != nil {
			b.Fatal(err)
		}
	}
}
