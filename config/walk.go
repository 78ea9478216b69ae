package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// The walk follows TOML's own rules for where a key lands: a [table] or
// [[table]] header sets the current table, a dotted key descends from it,
// and a header or dotted key that passes through a list of tables (like
// [service.health] after [[service]]) means that list's last element.

var root = cursor{typ: typeRawFile}

// tableHeader handles `[a.b]`.
func (d *document) tableHeader(e *unstable.Node) cursor {
	parts := keyParts(e)
	parent := d.descend(root, parts[:len(parts)-1])
	last := parts[len(parts)-1]
	path, line := joinKey(parent.path, string(last.Data)), d.lineOf(last, 0)
	d.mark(path, line)
	t, ok := d.lookup(parent, string(last.Data), path, line)
	if !ok {
		return cursor{path: path}
	}
	if !isTable(t) {
		d.wrongType(path, line, t, unstable.Table)
		return cursor{path: path}
	}
	return cursor{path: path, typ: t}
}

// arrayTableHeader handles `[[a.b]]`: a new element of the list a.b.
func (d *document) arrayTableHeader(e *unstable.Node) cursor {
	parts := keyParts(e)
	parent := d.descend(root, parts[:len(parts)-1])
	last := parts[len(parts)-1]
	path, line := joinKey(parent.path, string(last.Data)), d.lineOf(last, 0)
	elem := indexKey(path, d.counts[path])
	d.counts[path]++
	d.mark(path, line)
	d.mark(elem, line)
	t, ok := d.lookup(parent, string(last.Data), path, line)
	if !ok {
		return cursor{path: elem}
	}
	if !isTableList(t) {
		d.wrongType(path, line, t, unstable.ArrayTable)
		return cursor{path: elem}
	}
	return cursor{path: elem, typ: t.Elem()}
}

// keyValue handles `a.b = value`, at the top level or inside an inline table.
func (d *document) keyValue(cur cursor, e *unstable.Node) {
	parts := keyParts(e)
	parent := d.descend(cur, parts[:len(parts)-1])
	last := parts[len(parts)-1]
	seg := string(last.Data)
	path, line := joinKey(parent.path, seg), d.lineOf(last, 0)
	if first, dup := d.values[path]; dup {
		d.undecodable = true // go-toml refuses the document; say it better
		d.fail(path, line, "defined twice (first at line %d): keep one", first)
		return
	}
	d.values[path] = line
	d.mark(path, line)
	value := e.Value()
	d.noteName(parent.path, seg, value)
	if t, ok := d.lookup(parent, seg, path, line); ok {
		d.value(path, line, t, value)
	}
}

// descend follows the leading parts of a dotted key, each of which must be
// a table.
func (d *document) descend(cur cursor, parts []*unstable.Node) cursor {
	for _, part := range parts {
		seg := string(part.Data)
		path, line := joinKey(cur.path, seg), d.lineOf(part, 0)
		d.mark(path, line)
		t, ok := d.lookup(cur, seg, path, line)
		switch {
		case !ok:
			cur = cursor{path: path}
		case isTable(t):
			cur = cursor{path: path, typ: t}
		case isTableList(t) && d.counts[path] > 0:
			cur = cursor{path: indexKey(path, d.counts[path]-1), typ: t.Elem()}
		default:
			d.wrongType(path, line, t, unstable.Table)
			cur = cursor{path: path}
		}
	}
	return cur
}

// lookup finds the type of key seg in the table at cur, reporting an
// unknown key. Below an unknown key (cur.typ nil) it finds nothing, quietly.
func (d *document) lookup(cur cursor, seg, path string, line int) (reflect.Type, bool) {
	if cur.typ == nil {
		return nil, false
	}
	if t, ok := field(cur.typ, seg); ok {
		return deref(t), true
	}
	keys := acceptedKeys(cur.typ)
	if s := suggest(seg, keys); s != "" {
		d.fail(path, line, "unknown key: did you mean %q?", s)
	} else {
		d.fail(path, line, "unknown key: accepted keys here are %s", strings.Join(keys, ", "))
	}
	return nil, false
}

// value checks a value against the type its key decodes into.
func (d *document) value(path string, line int, t reflect.Type, v *unstable.Node) {
	d.mark(path, line)
	switch {
	case isTable(t):
		if v.Kind != unstable.InlineTable {
			d.wrongType(path, line, t, v.Kind)
			return
		}
		it := v.Children()
		for it.Next() {
			if kv := it.Node(); kv.Kind == unstable.KeyValue {
				d.keyValue(cursor{path: path, typ: t}, kv)
			}
		}
	case t.Kind() == reflect.Slice:
		d.list(path, line, t, v)
	case !fits(t, v.Kind):
		d.wrongType(path, line, t, v.Kind)
	}
}

func (d *document) list(path string, line int, t reflect.Type, v *unstable.Node) {
	if v.Kind != unstable.Array {
		d.wrongType(path, line, t, v.Kind)
		return
	}
	i := 0
	it := v.Children()
	for it.Next() {
		el := it.Node()
		if el.Kind == unstable.Comment {
			continue
		}
		d.value(indexKey(path, i), d.lineOf(el, line), deref(t.Elem()), el)
		i++
	}
	if isTableList(t) {
		d.counts[path] = i
	}
}

func (d *document) wrongType(path string, line int, t reflect.Type, k unstable.Kind) {
	d.undecodable = true
	msg := fmt.Sprintf("wrong type: want %s, got %s", want(t), got(k))
	switch {
	case isTableList(t) && k == unstable.Table:
		msg += fmt.Sprintf(": write [[%s]]", headerName(path))
	case isTable(t) && k == unstable.ArrayTable:
		msg += fmt.Sprintf(": write [%s]", headerName(path))
	}
	d.fail(path, line, "%s", msg)
}

// noteName remembers the name of a [[service]] or [[job]] element.
func (d *document) noteName(parent, seg string, v *unstable.Node) {
	if seg != "name" || v.Kind != unstable.String {
		return
	}
	for _, table := range []string{"service[", "job[", "notify["} {
		if strings.HasPrefix(parent, table) && strings.HasSuffix(parent, "]") && !strings.Contains(parent, ".") {
			d.names[parent] = string(v.Data)
		}
	}
}

// headerName is path as a table header writes it: without list indexes.
func headerName(path string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(path, '[')
		if i < 0 {
			b.WriteString(path)
			return b.String()
		}
		b.WriteString(path[:i])
		j := strings.IndexByte(path[i:], ']')
		if j < 0 {
			return b.String()
		}
		path = path[i+j+1:]
	}
}
