package config_test

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"svcctl/config"
	// Every channel and check kind registered by its own file: the schema
	// the agent runs with, and the one the docs describe.
	_ "svcctl/notify"
	_ "svcctl/probe"
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
	byTable := map[string][]config.DocKey{}
	var order []string
	for _, k := range config.DocKeys() {
		if k.Table == "" {
			continue // include: a section of its own, checked below
		}
		if _, ok := byTable[k.Table]; !ok {
			order = append(order, k.Table)
		}
		byTable[k.Table] = append(byTable[k.Table], k)
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
			r, ok := documented[k.Name]
			if !ok {
				t.Errorf("docs/configuration.md [%s]: no row for %s (the schema declares it: %s)", table, k.Name, k.Doc)
				continue
			}
			delete(documented, k.Name)
			checkDocRow(t, table, k, r)
		}
		for name, r := range documented {
			t.Errorf("docs/configuration.md:%d: [%s] documents %s, which the schema does not declare", r.line, table, name)
		}
	}
	if _, ok := docs["include"]; ok {
		t.Errorf("docs/configuration.md: include is a top-level key, not a table")
	}
	if b, _ := os.ReadFile("../docs/configuration.md"); !strings.Contains(string(b), "\n## include\n") {
		t.Errorf("docs/configuration.md has no section for the top-level key include")
	}
}

func checkDocRow(t *testing.T, table string, k config.DocKey, r docRow) {
	t.Helper()
	where := func() string { return "docs/configuration.md:" + strconv.Itoa(r.line) + ": [" + table + "] " + k.Name }
	if r.typ != k.Type {
		t.Errorf("%s: type %q, raw.go says %q", where(), r.typ, k.Type)
	}
	lit := docLiteral(r.def)
	switch {
	case k.Def != "" && lit != k.Def:
		t.Errorf("%s: default %q, raw.go says %s", where(), r.def, k.Def)
	case k.Def == "" && lit != "" && !slices.Contains(zeroLiterals, lit) && !strings.HasPrefix(lit, "<"):
		t.Errorf("%s: default %q, but raw.go declares none (its zero value, or computed)", where(), r.def)
	}
	if r.usedBy == "" {
		if k.Kinds != nil {
			t.Errorf("%s: only kinds %v take it, and the table has no used-by column", where(), k.Kinds)
		}
		return
	}
	all := config.TableKinds(table)
	want := k.Kinds
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

func sortedCopy(s []string) []string { return slices.Sorted(slices.Values(s)) }
