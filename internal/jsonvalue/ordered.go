package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Object is a JSON object that keeps the order of its keys, for editing a file people also
// edit (an agent's settings): what is not changed is written back as it was read, in its
// order. Its values are *Object, []any, json.Number, string, bool or nil.
type Object struct {
	keys   []string
	values map[string]any
}

// NewObject is an empty object.
func NewObject() *Object { return &Object{values: map[string]any{}} }

// DecodeOrdered decodes exactly one JSON value from b, objects as *Object and numbers as
// json.Number (written back exactly as they were).
func DecodeOrdered(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := NewObject()
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			o.Set(k.(string), v)
		}
		_, err := dec.Token() // '}'
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := decodeOrdered(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token() // ']'
		return a, err
	}
	return t, nil
}

// Get is the value of key k.
func (o *Object) Get(k string) (any, bool) {
	v, ok := o.values[k]
	return v, ok
}

// Set sets key k, at the end when it is new, in its place when not.
func (o *Object) Set(k string, v any) {
	if _, ok := o.values[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.values[k] = v
}

// Delete removes key k.
func (o *Object) Delete(k string) {
	if _, ok := o.values[k]; !ok {
		return
	}
	delete(o.values, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i:i], o.keys[i+1:]...)
			break
		}
	}
}

// Keys are the keys, in order.
func (o *Object) Keys() []string { return slices.Clone(o.keys) }

// Len is the number of keys.
func (o *Object) Len() int { return len(o.keys) }

// MarshalJSON writes the object with its keys in order, without HTML escaping.
func (o *Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		for j, v := range []any{k, o.values[k]} {
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			b.Truncate(b.Len() - 1) // Encode's newline
			if j == 0 {
				b.WriteByte(':')
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// EncodeIndented renders v as a file people read: indented by two spaces, no HTML
// escaping, a final newline.
func EncodeIndented(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
