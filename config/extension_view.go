package config

import (
	"fmt"
	"reflect"
)

// extViewType is a table's view type (NotifyView, DependView) with a
// registered kind's keys appended, each under its own name: the printed
// view of the kind, derived from its keys.
func extViewType(base, t reflect.Type) reflect.Type {
	fields := []reflect.StructField{{Name: base.Name(), Type: base, Anonymous: true}}
	for i := range t.NumField() {
		f := t.Field(i)
		name := tomlName(f)
		if name == "-" {
			continue
		}
		fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type,
			Tag: reflect.StructTag(fmt.Sprintf(`json:"%s,omitempty" toml:"%s,omitempty"`, name, name))})
	}
	return reflect.StructOf(fields)
}

// extView is view v of a table of kind kind with its registered keys:
// secrets shown as set, never as they are; the rest as they are.
func extView(table reflect.Type, kind string, v any, keys any) any {
	e := registered(table, kind)
	if e == nil || keys == nil {
		return v
	}
	out := reflect.New(e.view).Elem()
	out.Field(0).Set(reflect.ValueOf(v))
	in := reflect.ValueOf(keys).Elem()
	for i := range e.typ.NumField() {
		f := e.typ.Field(i)
		if tomlName(f) == "-" {
			continue
		}
		dst := out.FieldByName(f.Name)
		if f.Tag.Get("secret") == "true" {
			dst.SetString(redactSet(in.Field(i).String()))
			continue
		}
		dst.Set(in.Field(i))
	}
	return out.Interface()
}
