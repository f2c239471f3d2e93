package otlphttp

import (
	"encoding/binary"
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// The messages of opentelemetry/proto/trace/v1 (and common/v1, resource/v1) are written
// here field by field in protobuf's wire format, rather than through the generated Go
// types: those and the protobuf runtime they need were a tenth of the package
// initialisation every hermesctl start paid for. Field numbers are the .proto's; the tests
// decode what is written with the generated types.

// Span flags of trace.proto's SpanFlags.
const (
	flagHasIsRemote = 0x100 // SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK
	flagIsRemote    = 0x200 // SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK
)

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

func appendTag(b []byte, field, wire int) []byte {
	return binary.AppendUvarint(b, uint64(field)<<3|uint64(wire))
}

func appendBytes(b []byte, field int, v []byte) []byte {
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendString writes a string field, left out when empty (proto3's default).
func appendString(b []byte, field int, s string) []byte {
	if s == "" {
		return b
	}
	b = appendTag(b, field, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendVarint writes a varint field, left out when 0.
func appendVarint(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, field, wireVarint), v)
}

// appendFixed64 and appendFixed32 write fixed-size fields, left out when 0.
func appendFixed64(b []byte, field int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint64(appendTag(b, field, wireFixed64), v)
}

func appendFixed32(b []byte, field int, v uint32) []byte {
	if v == 0 {
		return b
	}
	return binary.LittleEndian.AppendUint32(appendTag(b, field, wireFixed32), v)
}

// appendMessage writes a message field whose body msg appends.
func appendMessage(b []byte, field int, msg func([]byte) []byte) []byte {
	return appendBytes(b, field, msg(nil))
}

// encodeRequest is the body of an export: an ExportTraceServiceRequest, whose only field
// is `repeated ResourceSpans resource_spans = 1`, holding spans.
func encodeRequest(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	var b []byte
	for _, rs := range resourceSpans(spans) {
		b = appendMessage(b, 1, rs.append)
	}
	return b, nil
}

// A resource's spans, by scope, in the order each was first met.
type resourceGroup struct {
	res    attribute.Set
	has    bool // a resource was set
	schema string
	scopes []*scopeGroup
}

type scopeGroup struct {
	scope instrumentation.Scope
	spans []sdktrace.ReadOnlySpan
}

// ResourceSpans: resource = 1, scope_spans = 2, schema_url = 3.
func (g *resourceGroup) append(b []byte) []byte {
	if g.has {
		b = appendMessage(b, 1, func(b []byte) []byte { // Resource: attributes = 1
			return appendAttributes(b, 1, g.res.Iter())
		})
	}
	for _, sg := range g.scopes {
		b = appendMessage(b, 2, sg.append)
	}
	return appendString(b, 3, g.schema)
}

// ScopeSpans: scope = 1, spans = 2, schema_url = 3.
func (sg *scopeGroup) append(b []byte) []byte {
	if s := sg.scope; s != (instrumentation.Scope{}) {
		b = appendMessage(b, 1, func(b []byte) []byte { // InstrumentationScope: name = 1, version = 2, attributes = 3
			b = appendString(b, 1, s.Name)
			b = appendString(b, 2, s.Version)
			return appendAttributes(b, 3, s.Attributes.Iter())
		})
	}
	for _, s := range sg.spans {
		b = appendMessage(b, 2, func(b []byte) []byte { return appendSpan(b, s) })
	}
	return appendString(b, 3, sg.scope.SchemaURL)
}

// resourceSpans groups spans by resource, then by instrumentation scope, in the order
// each is first met.
func resourceSpans(spans []sdktrace.ReadOnlySpan) []*resourceGroup {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	var out []*resourceGroup
	byRes := map[attribute.Distinct]*resourceGroup{}
	byScope := map[scopeKey]*scopeGroup{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rg := byRes[rk]
		if rg == nil {
			rg = &resourceGroup{schema: res.SchemaURL()}
			if res != nil {
				rg.res, rg.has = *res.Set(), true
			}
			byRes[rk] = rg
			out = append(out, rg)
		}
		scope := s.InstrumentationScope()
		sk := scopeKey{rk, scope}
		sg := byScope[sk]
		if sg == nil {
			sg = &scopeGroup{scope: scope}
			byScope[sk] = sg
			rg.scopes = append(rg.scopes, sg)
		}
		sg.spans = append(sg.spans, s)
	}
	return out
}

// appendSpan writes a Span: trace_id = 1, span_id = 2, trace_state = 3, parent_span_id = 4,
// name = 5, kind = 6, start_time_unix_nano = 7, end_time_unix_nano = 8, attributes = 9,
// dropped_attributes_count = 10, events = 11, dropped_events_count = 12, links = 13,
// dropped_links_count = 14, status = 15, flags = 16.
func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = appendBytes(b, 1, tid[:])
	b = appendBytes(b, 2, sid[:])
	b = appendString(b, 3, sc.TraceState().String())
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		b = appendBytes(b, 4, psid[:])
	}
	b = appendString(b, 5, s.Name())
	b = appendVarint(b, 6, spanKind(s.SpanKind()))
	b = appendFixed64(b, 7, unixNano(s.StartTime().UnixNano()))
	b = appendFixed64(b, 8, unixNano(s.EndTime().UnixNano()))
	b = appendKeyValues(b, 9, s.Attributes())
	b = appendVarint(b, 10, clampUint32(s.DroppedAttributes()))
	for _, e := range s.Events() { // Span.Event: time_unix_nano = 1, name = 2, attributes = 3, dropped_attributes_count = 4
		b = appendMessage(b, 11, func(b []byte) []byte {
			b = appendFixed64(b, 1, unixNano(e.Time.UnixNano()))
			b = appendString(b, 2, e.Name)
			b = appendKeyValues(b, 3, e.Attributes)
			return appendVarint(b, 4, clampUint32(e.DroppedAttributeCount))
		})
	}
	b = appendVarint(b, 12, clampUint32(s.DroppedEvents()))
	for _, l := range s.Links() { // Span.Link: trace_id = 1, span_id = 2, trace_state = 3, attributes = 4, dropped_attributes_count = 5, flags = 6
		b = appendMessage(b, 13, func(b []byte) []byte {
			tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
			b = appendBytes(b, 1, tid[:])
			b = appendBytes(b, 2, sid[:])
			b = appendString(b, 3, l.SpanContext.TraceState().String())
			b = appendKeyValues(b, 4, l.Attributes)
			b = appendVarint(b, 5, clampUint32(l.DroppedAttributeCount))
			return appendFixed32(b, 6, flags(l.SpanContext.TraceFlags(), l.SpanContext))
		})
	}
	b = appendVarint(b, 14, clampUint32(s.DroppedLinks()))
	st := s.Status()
	b = appendMessage(b, 15, func(b []byte) []byte { // Status: message = 2, code = 3
		b = appendString(b, 2, st.Description)
		return appendVarint(b, 3, statusCode(st.Code))
	})
	return appendFixed32(b, 16, flags(sc.TraceFlags(), parent))
}

// flags are the W3C trace flags in the low byte, with the bits saying that whether the
// parent (or the linked span) is remote is known, and whether it is.
func flags(tf trace.TraceFlags, other trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if other.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

func unixNano(n int64) uint64 { return uint64(max(0, n)) }

func clampUint32(v int) uint64 {
	return uint64(min(max(int64(v), 0), math.MaxUint32))
}

// statusCode is trace.proto's Status.StatusCode: UNSET 0, OK 1, ERROR 2.
func statusCode(c codes.Code) uint64 {
	switch c {
	case codes.Ok:
		return 1
	case codes.Error:
		return 2
	}
	return 0
}

// spanKind is trace.proto's Span.SpanKind: UNSPECIFIED 0, INTERNAL 1, SERVER 2, CLIENT 3,
// PRODUCER 4, CONSUMER 5.
func spanKind(k trace.SpanKind) uint64 {
	switch k {
	case trace.SpanKindInternal:
		return 1
	case trace.SpanKindServer:
		return 2
	case trace.SpanKindClient:
		return 3
	case trace.SpanKindProducer:
		return 4
	case trace.SpanKindConsumer:
		return 5
	}
	return 0
}

// appendKeyValues writes kvs as repeated KeyValue field.
func appendKeyValues(b []byte, field int, kvs []attribute.KeyValue) []byte {
	for _, kv := range kvs {
		b = appendMessage(b, field, func(b []byte) []byte { return appendKeyValue(b, kv) })
	}
	return b
}

func appendAttributes(b []byte, field int, it attribute.Iterator) []byte {
	for it.Next() {
		kv := it.Attribute()
		b = appendMessage(b, field, func(b []byte) []byte { return appendKeyValue(b, kv) })
	}
	return b
}

// appendKeyValue writes a KeyValue: key = 1, value = 2.
func appendKeyValue(b []byte, kv attribute.KeyValue) []byte {
	b = appendString(b, 1, string(kv.Key))
	return appendMessage(b, 2, func(b []byte) []byte { return appendAnyValue(b, kv.Value) })
}

// appendAnyValue writes the OTLP AnyValue of v (its oneof: string_value = 1, bool_value = 2,
// int_value = 3, double_value = 4, array_value = 5, kvlist_value = 6, bytes_value = 7, each
// written even when zero); a value of a type this code does not know is the string
// "INVALID", as the OpenTelemetry exporters send it.
func appendAnyValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.EMPTY:
		return b
	case attribute.BOOL:
		return appendBool(b, v.AsBool())
	case attribute.INT64:
		return appendInt(b, v.AsInt64())
	case attribute.FLOAT64:
		return appendDouble(b, v.AsFloat64())
	case attribute.STRING:
		return appendStringValue(b, v.AsString())
	case attribute.BYTESLICE:
		return appendBytes(b, 7, v.AsByteSlice())
	case attribute.BOOLSLICE:
		return appendArray(b, v.AsBoolSlice(), appendBool)
	case attribute.INT64SLICE:
		return appendArray(b, v.AsInt64Slice(), appendInt)
	case attribute.FLOAT64SLICE:
		return appendArray(b, v.AsFloat64Slice(), appendDouble)
	case attribute.STRINGSLICE:
		return appendArray(b, v.AsStringSlice(), appendStringValue)
	case attribute.SLICE:
		return appendArray(b, v.AsSlice(), appendAnyValue)
	case attribute.MAP:
		return appendMessage(b, 6, func(b []byte) []byte { return appendKeyValues(b, 1, v.AsMap()) }) // KeyValueList: values = 1
	}
	return appendStringValue(b, "INVALID")
}

func appendBool(b []byte, v bool) []byte {
	n := uint64(0)
	if v {
		n = 1
	}
	return binary.AppendUvarint(appendTag(b, 2, wireVarint), n)
}

func appendInt(b []byte, v int64) []byte {
	return binary.AppendUvarint(appendTag(b, 3, wireVarint), uint64(v))
}

func appendDouble(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(appendTag(b, 4, wireFixed64), math.Float64bits(v))
}

func appendStringValue(b []byte, s string) []byte {
	b = appendTag(b, 1, wireBytes)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendArray writes an array_value: ArrayValue's values = 1, each an AnyValue.
func appendArray[T any](b []byte, vs []T, each func([]byte, T) []byte) []byte {
	return appendMessage(b, 5, func(b []byte) []byte {
		for _, v := range vs {
			b = appendMessage(b, 1, func(b []byte) []byte { return each(b, v) })
		}
		return b
	})
}
