package snapshot

import (
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
