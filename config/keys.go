package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// key is one key of the schema, read from its field's tags in raw.go: the
// one place a key is declared (name, type, default, doc line, secret,
// kinds). Everything else this package knows about keys is derived from
// these.
type key struct {
	table   string   // "service.health"; "" for the top level
	name    string   // "timeout"
	typ     string   // as the docs name it: "duration", "path", "list of strings", ...
	def     string   // the default as written in the file ("\"5m\"", "5", "[\"file\"]"); "" = none
	defTag  string   // the default tag itself ("5m", "5", "file")
	doc     string   // one line for a person
	secret  bool     // never logged or printed (each value, for a table of strings)
	kinds   []string // the kinds that accept it; nil = every kind
	enum    []string // for a table's kind key: its kinds
	rawType reflect.Type
}

// path is the key's dotted name: "service.health.timeout".
func (k key) path() string {
	if k.table == "" {
		return k.name
	}
	return k.table + "." + k.name
}

// schemaKeys lists every key of the file, table by table, each table's in
// raw.go's order. A table (a struct or a list of structs) is not a key
// itself: its keys are listed under its name.
func schemaKeys() []key {
	var out []key
	var walk func(table string, t reflect.Type)
	walk = func(table string, t reflect.Type) {
		var own []key
		for i := range t.NumField() {
			f := t.Field(i)
			ft := deref(f.Type)
			sub := joinTable(table, tomlName(f))
			switch {
			case ft.Kind() == reflect.Struct:
				walk(sub, ft)
			case isTableList(ft):
				walk(sub, ft.Elem())
			default:
				own = append(own, keyOf(table, f))
			}
		}
		out = append(out, extendKeys(t, table, own)...)
	}
	walk("", typeRawFile)
	return out
}

func joinTable(table, name string) string {
	if table == "" {
		return name
	}
	return table + "." + name
}

// tableKeys are the keys of one table type (raw.go), in its order; tables
// nested in it are left out.
func tableKeys(t reflect.Type) []key {
	var out []key
	for i := range t.NumField() {
		f := t.Field(i)
		if ft := deref(f.Type); ft.Kind() == reflect.Struct || isTableList(ft) {
			continue
		}
		out = append(out, keyOf("", f))
	}
	return extendKeys(t, "", out)
}

func keyOf(table string, f reflect.StructField) key {
	k := key{
		table: table, name: tomlName(f), doc: f.Tag.Get("doc"), secret: f.Tag.Get("secret") == "true",
		kinds: list(f.Tag.Get("kinds")), enum: list(f.Tag.Get("enum")), rawType: f.Type,
	}
	k.typ = f.Tag.Get("type")
	if k.typ == "" {
		k.typ = typeWord(f.Type)
	}
	if d, ok := f.Tag.Lookup("default"); ok {
		k.def, k.defTag = literal(deref(f.Type), d), d
	}
	return k
}

func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// typeWord is what the docs call a key of type t.
func typeWord(t reflect.Type) string {
	t = deref(t)
	switch {
	case t == typeDurationText:
		return "duration"
	case t == typeSizeText:
		return "size"
	case t.Kind() == reflect.String:
		return "string"
	case t.Kind() == reflect.Int:
		return "integer"
	case t.Kind() == reflect.Bool:
		return "boolean"
	case t.Kind() == reflect.Slice:
		return "list of strings"
	case t.Kind() == reflect.Map:
		return "table of strings"
	}
	panic("config: no docs word for a key of type " + t.String())
}

// literal writes a default tag's value as the file would: strings quoted,
// a list as a TOML array, numbers and booleans bare.
func literal(t reflect.Type, d string) string {
	switch t.Kind() {
	case reflect.Slice:
		q := make([]string, 0)
		for _, e := range list(d) {
			q = append(q, strconv.Quote(e))
		}
		return "[" + strings.Join(q, ", ") + "]"
	case reflect.String:
		return strconv.Quote(d)
	}
	return d
}

// defaultOf is the default raw.go declares for key name of table type t,
// as its tag says it ("5m", "5", "true", "file,journal"): what the
// validators fall back on. A key without one is a mistake in this package,
// found by the first Load of any test.
func defaultOf(t reflect.Type, name string) string {
	for _, k := range tableKeys(t) {
		if k.name == name && k.def != "" {
			return k.defTag
		}
	}
	panic(fmt.Sprintf("config: %s has no default for %q in raw.go", t.Name(), name))
}

func defaultInt(t reflect.Type, name string) int {
	n, err := strconv.Atoi(defaultOf(t, name))
	if err != nil {
		panic(fmt.Sprintf("config: %s's default for %q is not an integer: %v", t.Name(), name, err))
	}
	return n
}

func defaultBool(t reflect.Type, name string) bool { return defaultOf(t, name) == "true" }

func defaultList(t reflect.Type, name string) []string { return list(defaultOf(t, name)) }

// kindNames are the kinds a table's kind key accepts (its enum tag).
func kindNames(t reflect.Type) []string {
	for _, k := range tableKeys(t) {
		if k.name == "kind" {
			return k.enum
		}
	}
	panic("config: " + t.Name() + " has no kind key")
}

// keysOfKinds maps each kind of table type t to the keys only some kinds
// take that it takes, in raw.go's order: what a key of another kind is
// refused against. Keys without a kinds tag are every kind's.
func keysOfKinds(t reflect.Type) map[string][]string {
	out := map[string][]string{}
	for _, kind := range kindNames(t) {
		out[kind] = []string{}
	}
	for _, k := range tableKeys(t) {
		for _, kind := range k.kinds {
			if _, ok := out[kind]; !ok {
				panic(fmt.Sprintf("config: %s.%s names kind %q, not in its kind key's enum", t.Name(), k.name, kind))
			}
			out[kind] = append(out[kind], k.name)
		}
	}
	return out
}

// commonKeys are the keys of table type t that every kind takes.
func commonKeys(t reflect.Type) []string {
	var out []string
	for _, k := range tableKeys(t) {
		if k.kinds == nil {
			out = append(out, k.name)
		}
	}
	return out
}

// takes reports whether kind takes key name of table type t.
func takes(t reflect.Type, kind, name string) bool {
	for _, k := range tableKeys(t) {
		if k.name == name {
			return k.kinds == nil || slices.Contains(k.kinds, kind)
		}
	}
	return false
}
