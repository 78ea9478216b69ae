package proc

import (
	"errors"
	"os"
	"testing"
)

func TestMatchSelf(t *testing.T) {
	self, err := IdentityOf(int32(os.Getpid()))
	if err != nil {
		t.Fatal(err)
	}
	if self.Start == 0 || self.CreateTime <= 0 || self.Exe == "" {
		t.Fatalf("IdentityOf(self) = %+v: want a start stamp, a create time and an exe", self)
	}
	if ok, err := Match(self); !ok || err != nil {
		t.Fatalf("Match(self) = %v, %v; want true", ok, err)
	}
	if !Alive(self.PID) {
		t.Fatal("Alive(self) = false")
	}
	// The exe is for people: a process that exec'd is still the same one.
	exec := self
	exec.Exe = "/usr/bin/dash"
	if ok, err := Match(exec); !ok || err != nil {
		t.Errorf("Match with another exe = %v, %v; want true (an exec is the same process)", ok, err)
	}
	// Another start stamp is another process.
	other := self
	other.Start++
	noFacts := Identity{PID: self.PID}
	for _, id := range []Identity{other, noFacts} {
		if ok, err := Match(id); ok || err != nil {
			t.Errorf("Match(%+v) = %v, %v; want false, nil", id, ok, err)
		}
	}
	if _, err := Match(Identity{PID: 0}); !errors.Is(err, ErrInvalidIdentity) {
		t.Errorf("Match(pid 0) = %v, want ErrInvalidIdentity", err)
	}
	if Alive(0) || Alive(-5) {
		t.Error("Alive(non-positive pid) = true")
	}
}
