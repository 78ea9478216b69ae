package config

import (
	"reflect"
	"strings"
)

// DocKey is a key of the schema as the docs test (docs_test.go, an external
// test so that it sees the kinds registered by their own files) reads it.
type DocKey struct {
	Table, Name, Path, Type, Def, Doc string
	Kinds                             []string // nil: every kind
}

// DocKeys is schemaKeys for the docs test.
func DocKeys() []DocKey {
	var out []DocKey
	for _, k := range schemaKeys() {
		out = append(out, DocKey{Table: k.table, Name: k.name, Path: k.path(), Type: k.typ, Def: k.def, Doc: k.doc, Kinds: k.kinds})
	}
	return out
}

// TableKinds are the kinds a dotted table's kind key accepts.
func TableKinds(table string) []string { return kindNames(typeRawFileTable(table)) }

// typeRawFileTable is the raw struct type of a dotted table name.
func typeRawFileTable(table string) reflect.Type {
	t := typeRawFile
	for _, seg := range strings.Split(table, ".") {
		f, ok := field(t, seg)
		if !ok {
			panic("no table " + table)
		}
		t = deref(f)
		if isTableList(t) {
			t = t.Elem()
		}
	}
	return t
}
