package config

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// docRow is one row of a key table in docs/configuration.md.
type docRow struct {
	line             int
	keys             []string
	typ, def, usedBy string
}

// docTables reads every key table of docs/configuration.md (a table whose
// header starts "| key |"), under the schema tables its heading names
// ("## [agent]", "### [[service.depends]] and [[job.depends]]").
func docTables(t *testing.T) map[string][]docRow {
	b, err := os.ReadFile("../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`\[\[?([a-z_.]+)\]?\]`)
	keyCell := regexp.MustCompile("`([a-z_]+)`")
	out := map[string][]docRow{}
	var tables []string
	var cols []string
	for i, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
			tables, cols = nil, nil
			for _, m := range heading.FindAllStringSubmatch(l, -1) {
				tables = append(tables, m[1])
			}
		case strings.HasPrefix(l, "| key |"):
			cols = cells(l)
		case strings.HasPrefix(l, "|---"):
		case strings.HasPrefix(l, "| `") && cols != nil && tables != nil:
			c := cells(l)
			r := docRow{line: i + 1}
			for _, m := range keyCell.FindAllStringSubmatch(c[0], -1) {
				r.keys = append(r.keys, m[1])
			}
			for j, name := range cols {
				switch name {
				case "type":
					r.typ = c[j]
				case "default":
					r.def = c[j]
				case "used by":
					r.usedBy = c[j]
				}
			}
			for _, tb := range tables {
				out[tb] = append(out[tb], r)
			}
		default:
			cols = nil
		}
	}
	return out
}

func cells(l string) []string {
	parts := strings.Split(strings.Trim(l, "|"), " | ")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

// TestDocsMatchSchema: docs/configuration.md has a row for every key of
// every table raw.go declares and none for a key it does not, each with the
// schema's type, its default (or, for a key without one, no other value),
// and, in a table with kinds, the kinds that take it. The schema is the one
// declaration; the reference is written for people, and held to it here.
func TestDocsMatchSchema(t *testing.T) {
	docs := docTables(t)
	byTable := map[string][]key{}
	var order []string
	for _, k := range schemaKeys() {
		if k.table == "" {
			continue // include: a section of its own, checked below
		}
		if _, ok := byTable[k.table]; !ok {
			order = append(order, k.table)
		}
		byTable[k.table] = append(byTable[k.table], k)
	}
	for _, table := range order {
		rows, ok := docs[table]
		if !ok {
			t.Errorf("docs/configuration.md has no key table under a heading naming [%s]", table)
			continue
		}
		documented := map[string]docRow{}
		for _, r := range rows {
			for _, k := range r.keys {
				documented[k] = r
			}
		}
		for _, k := range byTable[table] {
			r, ok := documented[k.name]
			if !ok {
				t.Errorf("docs/configuration.md [%s]: no row for %s (raw.go declares it: %s)", table, k.name, k.doc)
				continue
			}
			delete(documented, k.name)
			checkDocRow(t, table, k, r)
		}
		for name, r := range documented {
			t.Errorf("docs/configuration.md:%d: [%s] documents %s, which raw.go does not declare", r.line, table, name)
		}
	}
	if _, ok := docs["include"]; ok {
		t.Errorf("docs/configuration.md: include is a top-level key, not a table")
	}
	if b, _ := os.ReadFile("../docs/configuration.md"); !strings.Contains(string(b), "\n## include\n") {
		t.Errorf("docs/configuration.md has no section for the top-level key include")
	}
}

func checkDocRow(t *testing.T, table string, k key, r docRow) {
	t.Helper()
	where := func() string { return "docs/configuration.md:" + strconv.Itoa(r.line) + ": [" + table + "] " + k.name }
	if r.typ != k.typ {
		t.Errorf("%s: type %q, raw.go says %q", where(), r.typ, k.typ)
	}
	lit := docLiteral(r.def)
	switch {
	case k.def != "" && lit != k.def:
		t.Errorf("%s: default %q, raw.go says %s", where(), r.def, k.def)
	case k.def == "" && lit != "" && !slices.Contains(zeroLiterals, lit) && !strings.HasPrefix(lit, "<"):
		t.Errorf("%s: default %q, but raw.go declares none (its zero value, or computed)", where(), r.def)
	}
	if r.usedBy == "" {
		if k.kinds != nil {
			t.Errorf("%s: only kinds %v take it, and the table has no used-by column", where(), k.kinds)
		}
		return
	}
	all := kindNames(typeRawFileTable(table))
	want := k.kinds
	if want == nil {
		want = all
	}
	if got := docKinds(r.usedBy, all); !slices.Equal(sortedCopy(got), sortedCopy(want)) {
		t.Errorf("%s: used by %v (%q), raw.go says %v", where(), got, r.usedBy, want)
	}
}

// zeroLiterals are how the docs write a key's zero value.
var zeroLiterals = []string{`""`, `0`, `"0s"`, `[]`, `{}`, `false`}

// docLiteral is the value a default cell starts with, when it starts with
// one in backquotes ("`\"5m\"` (five minutes)" -> "\"5m\""); "" for words
// ("required", "per OS", "none").
func docLiteral(cell string) string {
	if !strings.HasPrefix(cell, "`") {
		return ""
	}
	end := strings.Index(cell[1:], "`")
	if end < 0 {
		return ""
	}
	return cell[1 : end+1]
}

// docKinds reads a used-by cell: "all", "all but otlp (why)", or kinds
// separated by commas, each perhaps followed by a parenthesis.
func docKinds(cell string, all []string) []string {
	paren := regexp.MustCompile(`\s*\([^)]*\)`)
	cell = strings.TrimSpace(paren.ReplaceAllString(cell, ""))
	if cell == "all" {
		return all
	}
	if but, ok := strings.CutPrefix(cell, "all but "); ok {
		return slices.DeleteFunc(slices.Clone(all), func(k string) bool { return slices.Contains(strings.Split(but, ", "), k) })
	}
	var out []string
	for _, k := range strings.Split(cell, ",") {
		out = append(out, strings.TrimSpace(k))
	}
	return out
}

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

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }
