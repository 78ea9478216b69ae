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
	if ok, err := Match(self); !ok || err != nil {
		t.Fatalf("Match(self) = %v, %v; want true", ok, err)
	}
	if !Alive(self.PID) {
		t.Fatal("Alive(self) = false")
	}
	// An identity missing a fact proves nothing, even at a live PID.
	noTime, noExe := self, self
	noTime.CreateTime, noExe.Exe = 0, ""
	for _, id := range []Identity{noTime, noExe} {
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
