package schedule

import (
	"hash/fnv"
	"time"
)

// Stagger is a deterministic delay in [0, window) derived from key (e.g. the
// job name), so that catch-ups and first runs of many jobs after a wake do
// not all start in the same second, and the same job gets the same delay on
// every host start. A window <= 0 gives 0.
func Stagger(key string, window time.Duration) time.Duration {
	if window <= 0 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(key)) // never fails
	return time.Duration(h.Sum64() % uint64(window))
}
