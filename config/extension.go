package config

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"
)

// A kind of a table with a kind key ([[notify]] channels, depends checks)
// may be declared by the file that implements it (package notify, package
// probe) instead of in raw.go: its registration adds its name to the kind
// key's enum and its keys to that table of the one schema, so the strict
// check, the kind rules ("not used by kind"), the typed config (Keys), the
// printed view, SecretValues and the trust checks of secret files all know
// them without an edit in this package. docs/design/config.md, "Extension
// points", says why a registry.

// NotifyKind is a channel kind as its own file declares it.
type NotifyKind struct {
	Name string
	// Keys is a zero value of the struct of the keys only this kind takes,
	// each field tagged as raw.go's are (toml, doc, default, type, secret,
	// and how the view prints it: show, view, file; view.go).
	// Fields are strings, lists of strings, integers or booleans. A path
	// field tagged secretfile:"Field" is a secret file: it is read at load
	// (readSecretFile, with every secret file's rules: no link, one line,
	// trust-checked when privileged, listed as unread for the read-only
	// verbs) into Field, which is toml:"-" and secret. Notify.Keys holds a
	// pointer to a value of this type, decoded, defaulted, paths absolute.
	Keys any
	// Shared are keys raw.go declares for some kinds (url, min_interval)
	// that this kind takes too.
	Shared []string
	// Check validates the decoded keys (Notify.Keys), reporting each problem
	// at its key ("url", "to") with what to write instead.
	Check func(n *Notify, fail func(key, format string, args ...any))
}

// DependKind is a dependency kind as its own file declares it: the same as
// a NotifyKind, for a [[service.depends]] or [[job.depends]] entry
// (Depend.Keys).
type DependKind struct {
	Name   string
	Keys   any
	Shared []string
	Check  func(d *Depend, fail func(key, format string, args ...any))
}

// extKind is a registered kind of the table whose raw type is table.
type extKind struct {
	table  reflect.Type // typeRawNotify or typeRawDepend
	name   string
	typ    reflect.Type // the Keys struct
	shared []string
	check  func(typed any, fail func(key, format string, args ...any))
}

var (
	extMu    sync.RWMutex
	extKinds []*extKind // in the order registered
)

// RegisterNotifyKind declares a channel kind, from the init of its file.
func RegisterNotifyKind(k NotifyKind) {
	register(&extKind{table: typeRawNotify, name: k.Name, shared: k.Shared,
		check: func(v any, fail func(string, string, ...any)) {
			if k.Check != nil {
				k.Check(v.(*Notify), fail)
			}
		}}, k.Keys, &NotifyKinds)
}

// RegisterDependKind declares a dependency kind, from the init of its file.
func RegisterDependKind(k DependKind) {
	register(&extKind{table: typeRawDepend, name: k.Name, shared: k.Shared,
		check: func(v any, fail func(string, string, ...any)) {
			if k.Check != nil {
				k.Check(v.(*Depend), fail)
			}
		}}, k.Keys, &DependKinds)
}

// register panics on a mistake in the registering file (a name taken, a
// key raw.go declares, a shared key raw.go lacks): it runs at init, so the
// first test of the package finds it.
func register(e *extKind, keys any, names *[]string) {
	t := reflect.TypeOf(keys)
	if t == nil || t.Kind() != reflect.Struct {
		panic("config: kind " + e.name + ": Keys must be a struct value")
	}
	if slices.Contains(*names, e.name) {
		panic("config: kind " + e.name + " is declared twice")
	}
	for _, s := range e.shared {
		if _, ok := rawField(e.table, s); !ok {
			panic(fmt.Sprintf("config: kind %s shares key %q, which raw.go's %s does not declare", e.name, s, e.table.Name()))
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name := tomlName(f)
		if name == "-" {
			continue
		}
		if _, ok := rawField(e.table, name); ok {
			panic(fmt.Sprintf("config: kind %s declares %q, which raw.go declares: list it in Shared", e.name, name))
		}
		if prev, ok := extField(e.table, name); ok && prev != f.Type {
			panic(fmt.Sprintf("config: kind %s declares %q as %s, another kind as %s", e.name, name, f.Type, prev))
		}
		if f.Tag.Get("secret") == "true" && f.Type.Kind() != reflect.String {
			panic(fmt.Sprintf("config: kind %s: secret key %q must be a string", e.name, name))
		}
		typeWord(f.Type) // panics on a type the schema cannot name
	}
	e.typ = t
	extMu.Lock()
	defer extMu.Unlock()
	extKinds = append(extKinds, e)
	*names = append(*names, e.name)
}

func rawField(table reflect.Type, name string) (reflect.StructField, bool) {
	for i := range table.NumField() {
		if f := table.Field(i); tomlName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// registeredIn lists the kinds registered into table, in order.
func registeredIn(table reflect.Type) []*extKind {
	extMu.RLock()
	defer extMu.RUnlock()
	var out []*extKind
	for _, e := range extKinds {
		if e.table == table {
			out = append(out, e)
		}
	}
	return out
}

// registered is the kind named name registered into table, or nil.
func registered(table reflect.Type, name string) *extKind {
	for _, e := range registeredIn(table) {
		if e.name == name {
			return e
		}
	}
	return nil
}

// extField is the type of key name of a kind registered into table.
func extField(table reflect.Type, name string) (reflect.Type, bool) {
	for _, e := range registeredIn(table) {
		for i := range e.typ.NumField() {
			if f := e.typ.Field(i); tomlName(f) == name {
				return f.Type, true
			}
		}
	}
	return nil, false
}

// extendKeys adds the kinds registered into table type t to its keys as
// raw.go declares them: each kind in the kind key's enum and in the kinds
// of the keys it shares, and its own keys, in the order registered.
func extendKeys(t reflect.Type, table string, keys []key) []key {
	exts := registeredIn(t)
	if len(exts) == 0 {
		return keys
	}
	for i := range keys {
		k := &keys[i]
		k.enum, k.kinds = slices.Clone(k.enum), slices.Clone(k.kinds)
		for _, e := range exts {
			switch {
			case k.name == "kind":
				k.enum = append(k.enum, e.name)
			case k.kinds != nil && slices.Contains(e.shared, k.name):
				k.kinds = append(k.kinds, e.name)
			}
		}
	}
	for _, e := range exts {
		for i := range e.typ.NumField() {
			f := e.typ.Field(i)
			if tomlName(f) == "-" {
				continue
			}
			if at := slices.IndexFunc(keys, func(k key) bool { return k.name == tomlName(f) }); at >= 0 {
				keys[at].kinds = append(keys[at].kinds, e.name)
				continue
			}
			k := keyOf(table, f)
			k.kinds = []string{e.name}
			keys = append(keys, k)
		}
	}
	return keys
}

// isExtKey reports whether a go-toml strict error's key is a registered
// kind's key (go-toml decodes into raw.go's structs only).
func isExtKey(path []string) bool {
	if len(path) == 0 {
		return false
	}
	var table reflect.Type
	switch strings.Join(path[:len(path)-1], ".") {
	case "notify":
		table = typeRawNotify
	case "service.depends", "job.depends":
		table = typeRawDepend
	default:
		return false
	}
	_, ok := extField(table, path[len(path)-1])
	return ok
}

// extTables decodes the tables registered kinds may be in as maps, by the
// walk's path ("notify[2]", "service[0].depends[1]"); nil when no kind is
// registered.
func extTables(data []byte) map[string]map[string]any {
	extMu.RLock()
	none := len(extKinds) == 0
	extMu.RUnlock()
	if none {
		return nil
	}
	type withDepends struct {
		Depends []map[string]any `toml:"depends"`
	}
	var doc struct {
		Service []withDepends    `toml:"service"`
		Job     []withDepends    `toml:"job"`
		Notify  []map[string]any `toml:"notify"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil // the strict decode has reported it
	}
	out := map[string]map[string]any{}
	for i, m := range doc.Notify {
		out[indexKey("notify", i)] = m
	}
	for what, list := range map[string][]withDepends{"service": doc.Service, "job": doc.Job} {
		for i, t := range list {
			for j, m := range t.Depends {
				out[indexKey(indexKey(what, i)+".depends", j)] = m
			}
		}
	}
	return out
}

// extKeys decodes, defaults and resolves the keys of the registered kind
// of the table at p (typed: its *Notify or *Depend, whose Keys field *keys
// is), then runs the kind's Check.
func (c *checker) extKeys(p string, e *extKind, typed any, keys *any) {
	m := c.ext[p]
	own := map[string]any{}
	for i := range e.typ.NumField() {
		name := tomlName(e.typ.Field(i))
		if v, ok := m[name]; ok {
			own[name] = v
		}
	}
	v := reflect.New(e.typ)
	if b, err := toml.Marshal(own); err == nil {
		if err := toml.NewDecoder(bytes.NewReader(b)).Decode(v.Interface()); err != nil {
			c.fail(p, "%v", err) // the walk checked the types: not expected
		}
	}
	s := v.Elem()
	for i := range e.typ.NumField() {
		f := e.typ.Field(i)
		name := tomlName(f)
		fv := s.Field(i)
		if d, ok := f.Tag.Lookup("default"); ok && !c.doc.has(p+"."+name) && fv.Kind() == reflect.String {
			fv.SetString(d)
		}
		switch target := f.Tag.Get("secretfile"); {
		case f.Tag.Get("type") != "path" || fv.String() == "":
		case target != "":
			secret, file := c.notifySecretFile(p, strings.TrimSuffix(name, "_file"), "", fv.String())
			s.FieldByName(target).SetString(secret)
			fv.SetString(file)
		default:
			fv.SetString(c.path(p+"."+name, fv.String()))
		}
	}
	*keys = v.Interface()
	e.check(typed, func(key, format string, args ...any) { c.fail(p+"."+key, format, args...) })
}

// extKeys are the Keys of every table of a kind registered by its own
// file: channels and depends entries.
func (c *Config) extKeys() []any {
	var out []any
	for i := range c.Notify {
		out = append(out, c.Notify[i].Keys)
	}
	for _, ds := range c.dependLists() {
		for i := range ds {
			out = append(out, ds[i].Keys)
		}
	}
	return out
}

func (c *Config) dependLists() [][]Depend {
	var out [][]Depend
	for i := range c.Services {
		out = append(out, c.Services[i].Depends)
	}
	for i := range c.Jobs {
		out = append(out, c.Jobs[i].Depends)
	}
	return out
}

// extValues calls fn with each field of registered keys (a Keys value)
// tagged tag (secret, secretfile) and its value, a string or a list.
func extValues(keys any, tag string, fn func(f reflect.StructField, v []string)) {
	if keys == nil {
		return
	}
	s := reflect.ValueOf(keys).Elem()
	for i := range s.NumField() {
		f := s.Type().Field(i)
		if f.Tag.Get(tag) == "" || f.Tag.Get(tag) == "false" {
			continue
		}
		switch fv := s.Field(i); fv.Kind() {
		case reflect.String:
			fn(f, []string{fv.String()})
		case reflect.Slice:
			fn(f, fv.Interface().([]string))
		}
	}
}
