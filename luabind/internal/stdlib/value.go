package stdlib

import (
	"context"
	"fmt"
	"math"
	"slices"

	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Limits on values converted back from Lua.
const (
	// MaxConvertDepth is how deeply a converted value may nest.
	MaxConvertDepth = 64
	maxConvertItems = 1 << 20
	// convertPollEvery is how many values a conversion converts between two looks at its
	// context.
	convertPollEvery = 1 << 12
)

// ToGo converts a Lua value to Go: nil, bool, string, int64 for integral numbers (float64
// otherwise), []any for tables whose keys are exactly 1..n (or marked with json.array),
// map[string]any for other tables. json.null becomes nil. Functions, userdata, threads,
// cycles and values nested deeper than 64 levels are errors naming where they were found.
// A conversion walks up to 1,048,576 values: it looks at ctx every few thousand of them and
// returns ctx's error once ctx is done (the call's timeout, for a value a hook hands over).
func ToGo(ctx context.Context, v lua.LValue) (any, error) {
	c := converter{ctx: ctx}
	return c.value(v, nil, 0)
}

// ToWire is ToGo for a value that must have a wire (JSON) form: NaN and the infinities are
// errors too.
func ToWire(ctx context.Context, v lua.LValue) (any, error) {
	c := converter{ctx: ctx, finite: true}
	return c.value(v, nil, 0)
}

// ToWireInto is ToWire, except that a table that converts to an object at the top level is
// converted into into, cleared first, which is then the value returned: a caller that is
// done with each value before the next conversion reuses one map. Values nested in it are
// new, as ToWire's. A nil into is ToWire.
func ToWireInto(ctx context.Context, v lua.LValue, into map[string]any) (any, error) {
	c := converter{ctx: ctx, finite: true, into: into}
	return c.value(v, nil, 0)
}

// ConvertError is a value that cannot cross from Lua to Go: a function, userdata, a cycle,
// a table nested too deep; Msg says what and where.
type ConvertError struct{ Msg string }

func (e *ConvertError) Error() string { return e.Msg }

type converter struct {
	ctx    context.Context              // looked at every convertPollEvery values
	finite bool                         // NaN and the infinities are errors
	into   map[string]any               // the map an object at the top level is converted into; nil: a new one
	open   [MaxConvertDepth]*lua.LTable // open[d]: the table being converted at depth d (cycles)
	items  int
}

// The path of a value (jsonPath, "value.a[2]") is only rendered in an error: building it
// for every value was an allocation per value.
func (c *converter) value(v lua.LValue, path *jsonPath, depth int) (any, error) {
	switch x := v.(type) {
	case *lua.LNilType:
		return nil, nil
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case lua.LNumber:
		if f := float64(x); c.finite && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return nil, &ConvertError{Msg: fmt.Sprintf("unsupported value: cannot encode %v as JSON", f)}
		}
		return number(float64(x)), nil
	case *lua.LTable:
		return c.table(x, path, depth)
	case *lua.LUserData:
		if x.Value == NullValue {
			return nil, nil
		}
	}
	return nil, &ConvertError{Msg: fmt.Sprintf("unsupported value of type %s at %s", v.Type(), path.String())}
}

// number keeps integral values integral.
func number(f float64) any {
	if f == math.Trunc(f) && f >= -(1<<53) && f <= 1<<53 {
		return int64(f)
	}
	return f
}

func (c *converter) table(t *lua.LTable, path *jsonPath, depth int) (any, error) {
	if depth >= MaxConvertDepth {
		return nil, &ConvertError{Msg: fmt.Sprintf("table nested deeper than %d levels at %s", MaxConvertDepth, path.String())}
	}
	if slices.Contains(c.open[:depth], t) {
		return nil, &ConvertError{Msg: "table contains itself (a cycle) at " + path.String()}
	}
	c.open[depth] = t

	n, isArray, err := arrayLen(t, c.ctx)
	if err != nil {
		return nil, err
	}
	if isArray && (n > 0 || IsMarkedArray(t)) {
		out := make([]any, n)
		for i := 1; i <= n; i++ {
			v, err := c.item(t.RawGetInt(i), path, "", i, depth)
			if err != nil {
				return nil, err
			}
			out[i-1] = v
		}
		return out, nil
	}
	out := c.into
	if out == nil || depth > 0 {
		out = make(map[string]any, n)
	} else {
		clear(out)
	}
	c.into = nil
	// pairs rather than ForEach: it hands out the keys the table keeps, where ForEach boxes
	// every string key again and its callback is one more allocation.
	for k, v := range t.Pairs() {
		var key string
		switch kk := k.(type) {
		case lua.LString:
			key = string(kk)
		case lua.LNumber:
			key = kk.String()
		default:
			return nil, &ConvertError{Msg: fmt.Sprintf("unsupported key of type %s in %s", k.Type(), path.String())}
		}
		var err error
		if out[key], err = c.item(v, path, key, 0, depth); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// item converts the value at key (an object's) or index (an array's) of the table at path.
func (c *converter) item(v lua.LValue, path *jsonPath, key string, index int, depth int) (any, error) {
	c.items++
	if c.items > maxConvertItems {
		return nil, &ConvertError{Msg: fmt.Sprintf("more than %d values to convert", maxConvertItems)}
	}
	if c.items%convertPollEvery == 0 {
		if err := c.ctx.Err(); err != nil {
			return nil, err
		}
	}
	var here *jsonPath
	if _, nested := v.(*lua.LTable); nested || !isPlain(v) {
		here = &jsonPath{parent: path, key: key, index: index}
	}
	return c.value(v, here, depth+1)
}

// arrayLen reports whether t's keys are exactly the integers 1..n, and n (else the number
// of keys seen until one was not). With ctx, it looks at ctx every convertPollEvery keys
// and gives up with its error once it is done.
func arrayLen(t *lua.LTable, ctx context.Context) (int, bool, error) {
	count, maxKey := 0, 0
	for k := range t.Pairs() {
		num, isNum := k.(lua.LNumber)
		if !isNum || float64(num) != math.Trunc(float64(num)) || num < 1 {
			return count, false, nil
		}
		count++
		maxKey = max(maxKey, int(num))
		if ctx != nil && count%convertPollEvery == 0 {
			if err := ctx.Err(); err != nil {
				return 0, false, err
			}
		}
	}
	return count, count == maxKey, nil
}
