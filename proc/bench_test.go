package proc

import (
	"os"
	"testing"
)

// BenchmarkMatch is the cost of one identity check (pid, status, create time, exe).
func BenchmarkMatch(b *testing.B) {
	id, err := IdentityOf(int32(os.Getpid()))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if ok, err := Match(id); !ok || err != nil {
			b.Fatalf("Match(self) = %v, %v", ok, err)
		}
	}
}
