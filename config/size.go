package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"
)

// Sizes are strings with a unit, decimal or binary: "50MiB", "512KiB",
// "2GB", "1.5 GiB". A bare number is refused: "50" could mean bytes or
// megabytes, and the file should say which.

const sizeHint = `use a number with a unit, like "50MiB", "512KiB" or "2GB"`

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
	tib = 1 << 40
)

// maxSize bounds every size: no log needs more, and a bound keeps every
// later sum of sizes far from overflowing.
const maxSize = tib

// ParseSize parses a size with a unit into bytes.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	unit := strings.TrimLeft(t, "0123456789.,")
	if t == "" || strings.TrimSpace(unit) == "" || unit == t {
		return 0, fmt.Errorf("invalid size %q: %s", s, sizeHint)
	}
	n, err := humanize.ParseBytes(t)
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %s", s, sizeHint)
	}
	if n > maxSize {
		return 0, fmt.Errorf("size %q is too large: the largest accepted is 1TiB", s)
	}
	return int64(n), nil
}

// FormatSize writes n the way a person would write it in the config:
// "50MiB" rather than 52428800; sizes that are no whole number of KiB are
// written in bytes ("1000B"). The result parses back to n with ParseSize.
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{tib, "TiB"}, {gib, "GiB"}, {mib, "MiB"}, {kib, "KiB"}} {
		if n >= u.size && n%u.size == 0 {
			return strconv.FormatInt(n/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
