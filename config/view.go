package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"svcctl/internal/redact"
)

// The printed view of each table is derived from the schema: a struct type
// built by reflection from the table's raw struct (raw.go) and, for a kind
// its own file registers, that kind's keys, one field per key under the
// key's name, in the schema's order; its values are read from the typed
// config (types.go), so defaults are filled in and paths absolute. How a key
// is printed is said by its tags in raw.go:
//
//	secret:"true"     a string shown as [redacted] when set; a table of
//	                  strings as its names, each value [redacted]
//	view:"host"       a URL shown by its scheme and host only (an ntfy
//	                  topic or a ping UUID in the path is a password)
//	view:"argv"       an argv: arguments of secret-looking flags redacted
//	view:"redact"     a URL shown with its password and query values redacted
//	view:"percent"    a number shown with its % sign
//	view:"events"     a list of event kinds, empty shown as every kind
//	file:"KEY"        the value may be read from file KEY: when KEY is set,
//	                  the view shows the file and leaves this key out (the
//	                  view stays a config that loads: one of key and KEY)
//	show:"set"        printed only when set (a table: when its typed value's
//	                  Set reports so)
//	show:"set-in-toml" always in the JSON (scripts read a fixed field set),
//	                  in the TOML only when set
//	show:"if=KEY"     printed only when key KEY of the table is set
//
// Durations are written as in the file ("10m", "40d"), sizes with their
// unit. In a table with a kind key, a key the kind does not take is left
// out. A key's typed value is the typed struct's field of the same Go name,
// or of that name in a struct field of it (RunAs.User, OTLP.Gzip); a key
// without one panics when its table's view is first built, which the
// package's tests do for every table and kind (TestViewShowsEveryKey).

// viewKey is how one key of a table is printed.
type viewKey struct {
	name   string
	raw    reflect.Type // the raw field's type
	typed  []int        // index path into the typed struct
	ext    bool         // a registered kind's key: typed is into its Keys
	secret bool
	view   string
	file   string
	show   string
	table  *viewTable // a table of its own ([service.health])
	list   *viewTable // a list of tables (depends), built per entry's kind
}

// viewTable is the printed view of one table (of one kind).
type viewTable struct {
	typ  reflect.Type
	keys []viewKey
}

type viewCacheKey struct {
	raw, typed reflect.Type // the view reads typed's fields: both key it
	kind       string
}

var viewCache sync.Map // viewCacheKey -> *viewTable

// viewOf is the view of table raw (of kind kind, "" for a table without a
// kind key) read from typed values of type typed.
func viewOf(raw, typed reflect.Type, kind string) *viewTable {
	ck := viewCacheKey{raw, typed, kind}
	if v, ok := viewCache.Load(ck); ok {
		return v.(*viewTable)
	}
	v := buildView(raw, typed, kind)
	viewCache.Store(ck, v)
	return v
}

func buildView(raw, typed reflect.Type, kind string) *viewTable {
	hasKind := raw == typeRawNotify || raw == typeRawDepend
	var keys []viewKey
	for i := range raw.NumField() {
		f := raw.Field(i)
		name := tomlName(f)
		if name == "-" || hasKind && !takes(raw, kind, name) {
			continue
		}
		k := newViewKey(f)
		k.typed = typedIndex(typed, f.Name, raw)
		ft := deref(f.Type)
		tf := typed.FieldByIndex(k.typed).Type
		switch {
		case ft.Kind() == reflect.Struct:
			k.table = viewOf(ft, tf, "")
		case isTableList(ft):
			k.list = &viewTable{typ: tf.Elem()} // the typed entry type; the view per entry
		}
		keys = append(keys, k)
	}
	if e := registered(raw, kind); e != nil {
		for i := range e.typ.NumField() {
			f := e.typ.Field(i)
			if tomlName(f) == "-" {
				continue
			}
			k := newViewKey(f)
			k.typed, k.ext = []int{i}, true
			keys = append(keys, k)
		}
	}
	fields := make([]reflect.StructField, 0, len(keys))
	for i, k := range keys {
		fields = append(fields, reflect.StructField{Name: "K" + strconv.Itoa(i), Type: k.viewType(), Tag: k.structTag()})
	}
	return &viewTable{typ: reflect.StructOf(fields), keys: keys}
}

func newViewKey(f reflect.StructField) viewKey {
	return viewKey{name: tomlName(f), raw: f.Type, secret: f.Tag.Get("secret") == "true",
		view: f.Tag.Get("view"), file: f.Tag.Get("file"), show: f.Tag.Get("show")}
}

// typedIndex finds the typed field of raw field name: the same Go name,
// or that name in a struct field that is not a table of its own.
func typedIndex(typed reflect.Type, name string, raw reflect.Type) []int {
	if f, ok := typed.FieldByName(name); ok {
		return f.Index
	}
	for i := range typed.NumField() {
		if s := typed.Field(i); s.Type.Kind() == reflect.Struct {
			if f, ok := s.Type.FieldByName(name); ok {
				return append([]int{i}, f.Index...)
			}
		}
	}
	panic(fmt.Sprintf("config: %s.%s has no field in the typed %s for the printed view", raw.Name(), name, typed.Name()))
}

func (k viewKey) viewType() reflect.Type {
	t := deref(k.raw)
	switch {
	case k.table != nil && k.show == "set":
		return reflect.PointerTo(k.table.typ)
	case k.table != nil:
		return k.table.typ
	case k.list != nil:
		return reflect.TypeFor[[]any]()
	case t == typeDurationText || t == typeSizeText || k.view == "percent":
		return reflect.TypeFor[string]()
	}
	return t
}

func (k viewKey) structTag() reflect.StructTag {
	js, tm := k.name, k.name
	switch {
	case k.show == "set-in-toml":
		tm += ",omitempty"
	case k.show != "":
		js, tm = js+",omitempty", tm+",omitempty"
	}
	return reflect.StructTag(fmt.Sprintf(`json:"%s" toml:"%s"`, js, tm))
}

// print fills a new view of table t from typed value in (a struct), kind
// being in's kind for a table with one, keys its registered keys.
func (t *viewTable) print(r *redact.Redactor, in reflect.Value, keys any) reflect.Value {
	out := reflect.New(t.typ).Elem()
	for i, k := range t.keys {
		if v, ok := t.value(r, in, keys, k); ok {
			out.Field(i).Set(v)
		}
	}
	return out
}

// typedOf is key k's typed value in in (or in the registered keys).
func typedOf(in reflect.Value, keys any, k viewKey) reflect.Value {
	if k.ext {
		return reflect.ValueOf(keys).Elem().FieldByIndex(k.typed)
	}
	return in.FieldByIndex(k.typed)
}

// sibling is the typed value of key name of the same table.
func (t *viewTable) sibling(in reflect.Value, keys any, name string) reflect.Value {
	for _, k := range t.keys {
		if k.name == name {
			return typedOf(in, keys, k)
		}
	}
	return reflect.Value{}
}

func isSet(v reflect.Value) bool {
	if !v.IsValid() {
		return false
	}
	if s, ok := v.Interface().(interface{ Set() bool }); ok {
		return s.Set()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map:
		return v.Len() > 0
	}
	return !v.IsZero()
}

// value is key k's printed value, false when it is left out.
func (t *viewTable) value(r *redact.Redactor, in reflect.Value, keys any, k viewKey) (reflect.Value, bool) {
	v := typedOf(in, keys, k)
	switch {
	case k.file != "" && isSet(t.sibling(in, keys, k.file)),
		k.show == "set" && !isSet(v),
		strings.HasPrefix(k.show, "if=") && !isSet(t.sibling(in, keys, strings.TrimPrefix(k.show, "if="))):
		return reflect.Value{}, false
	case k.table != nil:
		p := k.table.print(r, v, nil)
		if k.show == "set" {
			return p.Addr(), true
		}
		return p, true
	case k.list != nil:
		out := make([]any, 0, v.Len())
		for i := range v.Len() {
			e := v.Index(i)
			kind, ekeys := e.FieldByName("Kind").String(), e.FieldByName("Keys").Interface()
			out = append(out, viewOf(deref(k.raw).Elem(), e.Type(), kind).print(r, e, ekeys).Interface())
		}
		return reflect.ValueOf(out), true
	}
	return reflect.ValueOf(k.format(r, v)), true
}

// format writes a typed value as the view shows it.
func (k viewKey) format(r *redact.Redactor, v reflect.Value) any {
	t := deref(k.raw)
	switch {
	case k.secret && v.Kind() == reflect.Map:
		return redact.Env(v.Interface().(map[string]string))
	case k.secret && k.view == "host":
		return redact.SecretURL(v.String())
	case k.secret:
		if v.String() == "" {
			return ""
		}
		return redact.Placeholder
	case k.view == "argv":
		return r.Args(v.Interface().([]string))
	case k.view == "redact":
		return r.String(v.String())
	case k.view == "percent":
		return strconv.FormatFloat(v.Float(), 'f', -1, 64) + "%"
	case k.view == "events":
		if v.Len() == 0 {
			return slices.Clone(EventKinds)
		}
		return v.Interface()
	case t == typeDurationText:
		return FormatDuration(time.Duration(v.Int()))
	case t == typeSizeText:
		return FormatSize(v.Int())
	}
	return v.Convert(t).Interface()
}

// secretValues hands add the value of every key of table t (and of its
// tables) tagged secret in typed value in: strings, and each value of a
// table of strings. A registered kind's keys are left to extValues, which
// sees the secrets read from files too (toml:"-").
func secretValues(t *viewTable, in reflect.Value, add func(...string)) {
	for _, k := range t.keys {
		if k.ext {
			continue
		}
		v := typedOf(in, nil, k)
		switch {
		case k.table != nil:
			secretValues(k.table, v, add)
		case k.list != nil:
			for i := range v.Len() {
				e := v.Index(i)
				secretValues(viewOf(deref(k.raw).Elem(), e.Type(), e.FieldByName("Kind").String()), e, add)
			}
		case k.secret && v.Kind() == reflect.Map:
			for _, s := range v.Interface().(map[string]string) {
				add(s)
			}
		case k.secret:
			add(v.String())
		}
	}
}
