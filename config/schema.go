package config

import (
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// The schema is the raw structs themselves (raw.go): their `toml` tags are
// the keys a table accepts and their Go types say which TOML values fit;
// their other tags say the rest of each key (keys.go). Deriving it by
// reflection keeps one source of truth; a key added to raw.go is accepted
// and type-checked without touching this file.

var (
	typeRawFile      = reflect.TypeFor[rawFile]()
	typeDurationText = reflect.TypeFor[durationText]()
	typeSizeText     = reflect.TypeFor[sizeText]()
	typeRawDepend    = reflect.TypeFor[rawDepend]()
	typeRawNotify    = reflect.TypeFor[rawNotify]()
)

// field returns the type of the key named seg inside a value of type t:
// a struct field by its toml tag, or the element type of a map.
func field(t reflect.Type, seg string) (reflect.Type, bool) {
	switch t.Kind() {
	case reflect.Map:
		return t.Elem(), true
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if tomlName(f) == seg {
				return f.Type, true
			}
		}
		return extField(t, seg) // a key of a kind registered by its own file

	}
	return nil, false
}

func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	return name
}

// acceptedKeys lists the keys a struct type accepts, for "did you mean".
func acceptedKeys(t reflect.Type) []string {
	if t.Kind() != reflect.Struct {
		return nil
	}
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		keys = append(keys, tomlName(t.Field(i)))
	}
	for _, e := range registeredIn(t) {
		for i := range e.typ.NumField() {
			if name := tomlName(e.typ.Field(i)); name != "-" && !slices.Contains(keys, name) {
				keys = append(keys, name)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// isTable reports whether values of t are written as TOML tables.
func isTable(t reflect.Type) bool {
	k := t.Kind()
	return k == reflect.Struct || k == reflect.Map
}

// isTableList reports whether t is written as [[name]] tables.
func isTableList(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct
}

// fits reports whether a TOML scalar of kind k can be decoded into t.
func fits(t reflect.Type, k unstable.Kind) bool {
	switch t.Kind() {
	case reflect.String:
		return k == unstable.String
	case reflect.Int:
		return k == unstable.Integer
	case reflect.Bool:
		return k == unstable.Bool
	}
	return false
}

// want describes, for a person, what a key of type t takes.
func want(t reflect.Type) string {
	t = deref(t)
	switch {
	case t == typeDurationText:
		return `a duration string like "30s"`
	case t == typeSizeText:
		return `a size string like "50MiB"`
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Int:
		return "an integer"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case isTableList(t):
		return "a list of tables"
	case t.Kind() == reflect.Slice:
		return "a list of strings"
	case t.Kind() == reflect.Map:
		return "a table of strings"
	}
	return "a table"
}

// got describes, for a person, a TOML value of kind k.
func got(k unstable.Kind) string {
	switch k {
	case unstable.String:
		return "a string"
	case unstable.Integer:
		return "an integer"
	case unstable.Float:
		return "a float"
	case unstable.Bool:
		return "a boolean"
	case unstable.Array:
		return "a list"
	case unstable.InlineTable, unstable.Table:
		return "a table"
	case unstable.ArrayTable:
		return "a list of tables"
	}
	return "a date/time"
}

// suggest returns the accepted key closest to an unknown one, if it is close
// enough to be a typo.
func suggest(unknown string, accepted []string) string {
	best, bestDist := "", 3
	for _, k := range accepted {
		if d := editDistance(unknown, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance, on bytes (keys are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
