// Package words holds the few rules of English svc-ctl's messages share, so
// that every message counts the same way: "1 process", "2 processes",
// never "1 process(es)".
package words

import "fmt"

// Count is n with its noun: "1 slot", "3 slots", "0 slots".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
