package engine

import (
	"fmt"
	"reflect"
	"sort"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind"
)

// checkKwargs reports the first keyword argument whose value cannot reach a hook as it is:
// a Go struct, channel, function (other than a Func) or complex number, at any depth. Such a
// value would arrive as its fmt rendering ("{user x}") or not at all; a host that passes one
// made a mistake it should hear of. Of several, the first key in sorted order is named.
func checkKwargs(kwargs map[string]any) error {
	var bad []string
	for k, v := range kwargs {
		if !plain(v) && unsupported(reflect.ValueOf(v), 0) != "" {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	k := bad[0]
	return fmt.Errorf("kwarg %q holds a %s, which cannot reach a hook: pass strings, numbers, bools, maps, slices, an hookspec.Func, or an hookspec.Object (a facade built for Lua)",
		k, unsupported(reflect.ValueOf(kwargs[k]), 0))
}

// plain reports, without reflection, whether v is made only of the values hooks usually
// get; anything else is looked at closely.
func plain(v any) bool {
	switch x := v.(type) {
	case nil, string, bool, int, int64, float64, hookspec.Func, hookspec.Message, []hookspec.Message:
		return true
	case map[string]any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !plain(e) {
				return false
			}
		}
		return true
	}
	return false
}

// unsupported names the first value below v that cannot be converted, or "".
func unsupported(v reflect.Value, depth int) string {
	if !v.IsValid() || depth > 64 {
		return ""
	}
	switch v.Interface().(type) {
	case hookspec.Func, hookspec.Object, luabind.Table, fmt.Stringer, error, hookspec.Message, []hookspec.Message:
		return ""
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ""
		}
		return unsupported(v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			if bad := unsupported(v.Index(i), depth+1); bad != "" {
				return bad
			}
		}
		return ""
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			if bad := unsupported(iter.Value(), depth+1); bad != "" {
				return bad
			}
		}
		return ""
	case reflect.Struct, reflect.Chan, reflect.Func, reflect.Complex64, reflect.Complex128, reflect.UnsafePointer:
		return v.Type().String()
	}
	return ""
}

// rejected is the report of a firing whose kwargs cannot reach the hooks: no hook runs, and
// a guard fails safe (pre_tool_call blocks, pre_gateway_dispatch skips).
func (e *Engine) rejected(hook string, err error) Report {
	e.logger.Warn("hook not fired", "hook", hook, "error", err.Error())
	rs := []hookspec.Result{refusal(hook, err)}
	dec := hookspec.Merge(hook, rs)
	return Report{Event: hookspec.HookNamed(hook), Hooks: rs, Outcome: dec.Outcome(), Decision: dec}
}
