package proc

import (
	"os"
	"strconv"
	"syscall"
	"testing"
)

func TestSameCreateTimeLinux(t *testing.T) {
	for _, c := range []struct {
		now, rec int64
		want     bool
	}{
		{1000, 1000, true},
		{2000, 1000, true}, // boot time read one whole second apart
		{0, 1000, true},
		{2001, 1000, false},
		{1000, 3000, false},
	} {
		if got := sameCreateTime(c.now, c.rec); got != c.want {
			t.Errorf("sameCreateTime(%d, %d) = %v, want %v", c.now, c.rec, got, c.want)
		}
	}
}

func TestSameExeLinux(t *testing.T) {
	for _, c := range []struct {
		now, rec string
		want     bool
	}{
		{"/usr/bin/proxy", "/usr/bin/proxy", true},
		{"/usr/bin/proxy (deleted)", "/usr/bin/proxy", true}, // upgraded in place, same instance
		{"/usr/bin/proxy", "/usr/bin/other", false},
		{"/usr/bin/proxy (deleted)", "/usr/bin/other", false},
		{"/USR/bin/proxy", "/usr/bin/proxy", false},
	} {
		if got := sameExe(c.now, c.rec); got != c.want {
			t.Errorf("sameExe(%q, %q) = %v, want %v", c.now, c.rec, got, c.want)
		}
	}
}

func TestReadStatOwnProcess(t *testing.T) {
	state, pgrp, ok := readStat(strconv.Itoa(os.Getpid()))
	if !ok || pgrp != syscall.Getpgrp() || state == 'Z' {
		t.Fatalf("readStat(self) = %c, %d, %v; want pgrp %d", state, pgrp, ok, syscall.Getpgrp())
	}
	if _, _, ok := readStat("0"); ok {
		t.Fatal("readStat of a missing pid succeeded")
	}
}
