// Package jsonvalue decodes one JSON value the way hooks see values: numbers as int64 when
// integral and in range, else float64.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strconv"
)

// Decode decodes exactly one JSON value from b: anything after it is an error. Numbers
// become int64 (integral and in range) or float64; one out of float64's range (1e400)
// becomes its text, since no JSON encoder would take it back.
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return numbers(v), nil
}

// numbers replaces json.Number in v, in place.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64() // out of range: ±Inf
		if math.IsInf(f, 0) {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}
