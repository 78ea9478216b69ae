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

// A notification channel kind may be declared by the file that implements
// it (package notify) instead of in raw.go: RegisterNotifyKind adds its name
// to the kind key's enum and its keys to the [[notify]] table of the one
// schema, so the strict check, the kind rules ("not used by kind"), the
// typed config (Notify.Keys), the printed view, SecretValues and the trust
// checks of secret files all know them without an edit here. docs/design/
// config.md, "Extension points", says why a registry and not raw.go.

// NotifyKind is a channel kind as its own file declares it.
type NotifyKind struct {
	Name string
	// Keys is a zero value of the struct of the keys only this kind takes,
	// each field tagged as raw.go's are (toml, doc, default, type, secret).
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

type notifyExt struct {
	NotifyKind
	typ  reflect.Type // the Keys struct
	view reflect.Type // NotifyView with the keys appended (extview)
}

var (
	extMu    sync.RWMutex
	extKinds []*notifyExt // in the order registered
)

// RegisterNotifyKind declares a channel kind; it is called from the init of
// the kind's own file, so it panics on a mistake in that file (a name
// taken, a key raw.go declares, a shared key raw.go lacks): the first test
// of the package finds it.
func RegisterNotifyKind(k NotifyKind) {
	t := reflect.TypeOf(k.Keys)
	if t == nil || t.Kind() != reflect.Struct {
		panic("config: notify kind " + k.Name + ": Keys must be a struct value")
	}
	if slices.Contains(NotifyKinds, k.Name) {
		panic("config: notify kind " + k.Name + " is declared twice")
	}
	for _, s := range k.Shared {
		if _, ok := rawNotifyField(s); !ok {
			panic(fmt.Sprintf("config: notify kind %s shares key %q, which raw.go's rawNotify does not declare", k.Name, s))
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name := tomlName(f)
		if name == "-" {
			continue
		}
		if _, ok := rawNotifyField(name); ok {
			panic(fmt.Sprintf("config: notify kind %s declares %q, which raw.go declares: list it in Shared", k.Name, name))
		}
		if prev, ok := extField(name); ok && prev != f.Type {
			panic(fmt.Sprintf("config: notify kind %s declares %q as %s, another kind as %s", k.Name, name, f.Type, prev))
		}
		typeWord(f.Type) // panics on a type the schema cannot name
	}
	extMu.Lock()
	defer extMu.Unlock()
	extKinds = append(extKinds, &notifyExt{NotifyKind: k, typ: t, view: extViewType(t)})
	NotifyKinds = append(NotifyKinds, k.Name)
}

func rawNotifyField(name string) (reflect.StructField, bool) {
	for i := range typeRawNotify.NumField() {
		if f := typeRawNotify.Field(i); tomlName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// registered is the registered kind named name, or nil.
func registered(name string) *notifyExt {
	extMu.RLock()
	defer extMu.RUnlock()
	for _, e := range extKinds {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func registeredKinds() []*notifyExt {
	extMu.RLock()
	defer extMu.RUnlock()
	return slices.Clone(extKinds)
}

// extField is the type of a registered kind's key name.
func extField(name string) (reflect.Type, bool) {
	for _, e := range registeredKinds() {
		for i := range e.typ.NumField() {
			if f := e.typ.Field(i); tomlName(f) == name {
				return f.Type, true
			}
		}
	}
	return nil, false
}

// extendNotify adds the registered kinds to [[notify]]'s keys as raw.go
// declares them: each kind in the kind key's enum and in the kinds of the
// keys it shares, and its own keys, in the order registered.
func extendNotify(table string, keys []key) []key {
	exts := registeredKinds()
	for i := range keys {
		k := &keys[i]
		if k.name == "kind" {
			k.enum = slices.Clone(k.enum)
		}
		if k.kinds != nil {
			k.kinds = slices.Clone(k.kinds)
		}
		for _, e := range exts {
			switch {
			case k.name == "kind":
				k.enum = append(k.enum, e.Name)
			case k.kinds != nil && slices.Contains(e.Shared, k.name):
				k.kinds = append(k.kinds, e.Name)
			}
		}
	}
	for _, e := range exts {
		for i := range e.typ.NumField() {
			f := e.typ.Field(i)
			if tomlName(f) == "-" {
				continue
			}
			at := slices.IndexFunc(keys, func(k key) bool { return k.name == tomlName(f) })
			if at >= 0 {
				keys[at].kinds = append(keys[at].kinds, e.Name)
				continue
			}
			k := keyOf(table, f)
			k.kinds = []string{e.Name}
			keys = append(keys, k)
		}
	}
	return keys
}

// isExtKey reports whether a go-toml strict error's key is a registered
// kind's key of a [[notify]] table (go-toml decodes raw.go only).
func isExtKey(path []string) bool {
	if len(path) != 2 || path[0] != "notify" {
		return false
	}
	_, ok := extField(path[1])
	return ok
}

// extTables decodes each [[notify]] table of data as a map, for the keys of
// registered kinds (nil when none is registered).
func extTables(data []byte) []map[string]any {
	if len(registeredKinds()) == 0 {
		return nil
	}
	var doc struct {
		Notify []map[string]any `toml:"notify"`
	}
	if err := toml.Unmarshal(data, &doc); err != nil {
		return nil // the strict decode has reported it
	}
	return doc.Notify
}

// notifyKeys decodes, defaults and resolves the keys of registered kind e
// from the [[notify]] table at p (m: that table as decoded), then runs the
// kind's Check. It returns a pointer to e's Keys type.
func (c *checker) notifyKeys(p string, e *notifyExt, m map[string]any, n *Notify) any {
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
	n.Keys = v.Interface()
	if e.Check != nil {
		e.Check(n, func(key, format string, args ...any) { c.fail(p+"."+key, format, args...) })
	}
	return n.Keys
}

// extValues calls fn with each field of n's registered keys tagged tag
// (secret, secretfile) and its value, a string or a list of strings.
func extValues(n *Notify, tag string, fn func(f reflect.StructField, v []string)) {
	if n.Keys == nil {
		return
	}
	s := reflect.ValueOf(n.Keys).Elem()
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

// extViewType is NotifyView with a registered kind's keys appended, each
// under its own name: the printed view of the kind, derived from its keys.
func extViewType(t reflect.Type) reflect.Type {
	fields := []reflect.StructField{{Name: "NotifyView", Type: reflect.TypeFor[NotifyView](), Anonymous: true}}
	for i := range t.NumField() {
		f := t.Field(i)
		name := tomlName(f)
		if name == "-" {
			continue
		}
		ft := f.Type
		if f.Tag.Get("secret") == "true" {
			ft = reflect.TypeFor[string]() // shown as [redacted]
		}
		fields = append(fields, reflect.StructField{Name: f.Name, Type: ft,
			Tag: reflect.StructTag(fmt.Sprintf(`json:"%s,omitempty" toml:"%s,omitempty"`, name, name))})
	}
	return reflect.StructOf(fields)
}

// extView is v with n's registered keys: secrets shown as set, never as
// they are; paths, addresses and lists as they are.
func extView(v NotifyView, n *Notify) any {
	e := registered(n.Kind)
	if e == nil || n.Keys == nil {
		return v
	}
	out := reflect.New(e.view).Elem()
	out.Field(0).Set(reflect.ValueOf(v))
	keys := reflect.ValueOf(n.Keys).Elem()
	for i := range e.typ.NumField() {
		f := e.typ.Field(i)
		if tomlName(f) == "-" {
			continue
		}
		dst := out.FieldByName(f.Name)
		if f.Tag.Get("secret") == "true" {
			dst.SetString(redactSet(fmt.Sprint(keys.Field(i).Interface())))
			continue
		}
		dst.Set(keys.Field(i))
	}
	return out.Interface()
}
