package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// document is what one pass over the parsed TOML learns before anything is
// decoded: the line of every key and table (so that checks made after
// decoding can still name file:line), the name of each [[service]] and
// [[job]] (so that errors can say `service "proxy"`), and every problem of
// shape: unknown keys and values of the wrong type, all of them, not just
// the first.
//
// Paths are dotted keys with 0-based indexes for list elements:
// `service[1].health.timeout`, `job[0].depends[2].kind`.
type document struct {
	file        string
	lineStarts  []int             // byte offset where each line starts
	lines       map[string]int    // path -> line where it is first written
	names       map[string]string // "service[0]" -> its name, as written
	counts      map[string]int    // "service" -> number of elements so far
	values      map[string]int    // path of each key = value -> its line
	errs        errorList
	undecodable bool // a wrong type or a key set twice: go-toml would refuse to decode
}

// cursor is the table the walk is in: its path and the raw type it decodes
// into. typ is nil below an unknown key, which is reported once, not again
// for everything inside it.
type cursor struct {
	path string
	typ  reflect.Type
}

// scan parses data and walks every expression. A syntax error stops it and
// is returned as the only problem.
func scan(data []byte, file string) (*document, *Error) {
	d := &document{
		file:       file,
		lineStarts: lineStarts(data),
		lines:      map[string]int{},
		names:      map[string]string{},
		counts:     map[string]int{},
		values:     map[string]int{},
	}
	var p unstable.Parser
	p.Reset(data)
	cur := cursor{typ: typeRawFile}
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table:
			cur = d.tableHeader(e)
		case unstable.ArrayTable:
			cur = d.arrayTableHeader(e)
		case unstable.KeyValue:
			d.keyValue(cur, e)
		}
	}
	if err := p.Error(); err != nil {
		return d, d.syntaxError(data, err)
	}
	return d, nil
}

func (d *document) syntaxError(data []byte, err error) *Error {
	perr, ok := err.(*unstable.ParserError)
	if !ok {
		return &Error{File: d.file, Msg: "invalid TOML: " + err.Error()}
	}
	// The highlight is a subslice of data: its distance from the end of
	// the shared backing array gives its offset.
	offset := len(data)
	if perr.Highlight != nil && cap(perr.Highlight) <= cap(data) {
		offset = min(cap(data)-cap(perr.Highlight), len(data))
	}
	line, col := d.position(offset)
	return &Error{File: d.file, Line: line,
		Msg: fmt.Sprintf("invalid TOML (column %d): %s", col, perr.Message)}
}

func lineStarts(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position turns a byte offset into a 1-based line and column.
func (d *document) position(offset int) (line, col int) {
	i := sort.Search(len(d.lineStarts), func(i int) bool { return d.lineStarts[i] > offset }) - 1
	return i + 1, offset - d.lineStarts[i] + 1
}

// lineOf is the line a node starts on; fallback when the node carries no
// position (arrays do not).
func (d *document) lineOf(n *unstable.Node, fallback int) int {
	if n.Raw.Length == 0 {
		return fallback
	}
	line, _ := d.position(int(n.Raw.Offset))
	return line
}

func (d *document) mark(path string, line int) {
	if _, ok := d.lines[path]; !ok && line > 0 {
		d.lines[path] = line
	}
}

// has reports whether path is written in the file.
func (d *document) has(path string) bool {
	_, ok := d.lines[path]
	return ok
}

// line is where path is written or, when it is not (a required key left
// out, a default), where its nearest enclosing table is.
func (d *document) line(path string) int {
	for path != "" {
		if l, ok := d.lines[path]; ok {
			return l
		}
		path = parentPath(path)
	}
	return 0
}

// parentPath drops the last segment: `a.b[2]` -> `a.b`, `a.b` -> `a`.
func parentPath(path string) string {
	if strings.HasSuffix(path, "]") {
		if i := strings.LastIndexByte(path, '['); i >= 0 {
			return path[:i]
		}
	}
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return ""
}

func joinKey(path, seg string) string {
	if !isBareKey(seg) {
		seg = strconv.Quote(seg)
	}
	if path == "" {
		return seg
	}
	return path + "." + seg
}

func indexKey(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

func isBareKey(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

func keyParts(n *unstable.Node) []*unstable.Node {
	var parts []*unstable.Node
	it := n.Key()
	for it.Next() {
		parts = append(parts, it.Node())
	}
	return parts
}

// display renders a path for people: `service[1].health.timeout` becomes
// `service "proxy".health.timeout` when service[1] has a valid name.
func (d *document) display(path string) string {
	for _, table := range []string{"service", "job", "notify"} {
		if !strings.HasPrefix(path, table+"[") {
			continue
		}
		end := strings.IndexByte(path, ']') + 1
		if name, ok := d.names[path[:end]]; ok && validName(name) {
			return table + " " + strconv.Quote(name) + path[end:]
		}
	}
	return path
}

// finish renders every problem's key for people and returns them all.
func (d *document) finish() error {
	for _, e := range d.errs {
		e.Key = d.display(e.Key)
	}
	return d.errs.err()
}

func (d *document) fail(path string, line int, format string, args ...any) {
	d.errs.add(errorf(d.file, line, path, format, args...))
}
