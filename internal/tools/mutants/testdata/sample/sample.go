package sample

type box struct{ n int }

var limits = map[string]int{"a": 1, "b": 2}

func double(n int) int { return n * 2 }

func (b *box) grow() { b.n = b.n * 2 }

func (b box) twice() int { return b.n * 2 * 1 }
