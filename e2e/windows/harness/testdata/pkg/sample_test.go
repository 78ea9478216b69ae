package sample

import "testing"

func TestLogs(t *testing.T) {
	t.Logf("took %d ms", 12)
}

func TestErrors(t *testing.T) {
	t.Errorf("got %d, want %d",
		1, 2)
}

func TestHelperLogs(t *testing.T) {
	transcript(t, "a")
}

func TestHelperFails(t *testing.T) {
	check(t, 1)
}

func TestForeignHelper(t *testing.T) {
	elsewhere.WaitFor(t, nil)
}

func transcript(t *testing.T, s string) {
	t.Helper()
	t.Logf("transcript:\n%s", s)
}

func check(t *testing.T, n int) {
	t.Helper()
	t.Logf("checking %d", n)
	if n != 2 {
		t.Fatalf("n = %d", n)
	}
}

func TestSkips(t *testing.T) {
	t.Skipf("cannot make a link here: %v", nil)
}
