package words

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 processes"}, {1, "1 process"}, {2, "2 processes"}} {
		if got := Count(c.n, "process", "processes"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
