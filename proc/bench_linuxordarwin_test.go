//go:build linux || darwin

package proc

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSpawnStop is the cost of one detached spawn, identity record and
// graceful stop of a plain process.
func BenchmarkSpawnStop(b *testing.B) {
	sleep := sleepPath(b)
	for b.Loop() {
		c, err := Spawn(SpawnSpec{Argv: []string{sleep, "300"}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Stop(context.Background(), c.Identity, 10*time.Second); err != nil {
			b.Fatal(err)
		}
		<-c.Done
	}
}
