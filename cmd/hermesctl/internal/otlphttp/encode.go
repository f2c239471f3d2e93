package otlphttp

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// encodeRequest is the body of an export: an ExportTraceServiceRequest, whose only field
// is `repeated ResourceSpans resource_spans = 1`, holding spans.
func encodeRequest(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	var b []byte
	for _, rs := range resourceSpans(spans) {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(proto.Size(rs)))
		var err error
		if b, err = (proto.MarshalOptions{}).MarshalAppend(b, rs); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// resourceSpans groups spans by resource, then by instrumentation scope, in the order
// each is first met.
func resourceSpans(spans []sdktrace.ReadOnlySpan) []*tracepb.ResourceSpans {
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	var out []*tracepb.ResourceSpans
	byRes := map[attribute.Distinct]*tracepb.ResourceSpans{}
	byScope := map[scopeKey]*tracepb.ScopeSpans{}
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rs := byRes[rk]
		if rs == nil {
			rs = &tracepb.ResourceSpans{SchemaUrl: res.SchemaURL()}
			if res != nil {
				rs.Resource = &resourcepb.Resource{Attributes: iterator(res.Iter())}
			}
			byRes[rk] = rs
			out = append(out, rs)
		}
		scope := s.InstrumentationScope()
		sk := scopeKey{rk, scope}
		ss := byScope[sk]
		if ss == nil {
			ss = &tracepb.ScopeSpans{Scope: scopeOf(scope), Spans: []*tracepb.Span{}, SchemaUrl: scope.SchemaURL}
			byScope[sk] = ss
			rs.ScopeSpans = append(rs.ScopeSpans, ss)
		}
		ss.Spans = append(ss.Spans, span(s))
	}
	return out
}

// scopeOf is the OTLP form of an instrumentation scope, nil for the zero scope.
func scopeOf(s instrumentation.Scope) *commonpb.InstrumentationScope {
	if s == (instrumentation.Scope{}) {
		return nil
	}
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: iterator(s.Attributes.Iter())}
}

func span(s sdktrace.ReadOnlySpan) *tracepb.Span {
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	st := s.Status()
	out := &tracepb.Span{
		TraceId:                tid[:],
		SpanId:                 sid[:],
		TraceState:             sc.TraceState().String(),
		Name:                   s.Name(),
		Kind:                   spanKind(s.SpanKind()),
		StartTimeUnixNano:      unixNano(s.StartTime().UnixNano()),
		EndTimeUnixNano:        unixNano(s.EndTime().UnixNano()),
		Attributes:             keyValues(s.Attributes()),
		DroppedAttributesCount: clampUint32(s.DroppedAttributes()),
		Events:                 events(s.Events()),
		DroppedEventsCount:     clampUint32(s.DroppedEvents()),
		Links:                  links(s.Links()),
		DroppedLinksCount:      clampUint32(s.DroppedLinks()),
		Status:                 &tracepb.Status{Code: statusCode(st.Code), Message: st.Description},
	}
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		out.ParentSpanId = psid[:]
	}
	out.Flags = flags(sc.TraceFlags(), parent)
	return out
}

// flags are the W3C trace flags in the low byte, with the bits saying that whether the
// parent (or the linked span) is remote is known, and whether it is.
func flags(tf trace.TraceFlags, other trace.SpanContext) uint32 {
	f := uint32(tf) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)
	if other.IsRemote() {
		f |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	}
	return f
}

func unixNano(n int64) uint64 { return uint64(max(0, n)) }

func clampUint32(v int) uint32 {
	return uint32(min(max(int64(v), 0), math.MaxUint32))
}

func statusCode(c codes.Code) tracepb.Status_StatusCode {
	switch c {
	case codes.Ok:
		return tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		return tracepb.Status_STATUS_CODE_ERROR
	}
	return tracepb.Status_STATUS_CODE_UNSET
}

func spanKind(k trace.SpanKind) tracepb.Span_SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return tracepb.Span_SPAN_KIND_INTERNAL
	case trace.SpanKindClient:
		return tracepb.Span_SPAN_KIND_CLIENT
	case trace.SpanKindServer:
		return tracepb.Span_SPAN_KIND_SERVER
	case trace.SpanKindProducer:
		return tracepb.Span_SPAN_KIND_PRODUCER
	case trace.SpanKindConsumer:
		return tracepb.Span_SPAN_KIND_CONSUMER
	}
	return tracepb.Span_SPAN_KIND_UNSPECIFIED
}

func events(es []sdktrace.Event) []*tracepb.Span_Event {
	if len(es) == 0 {
		return nil
	}
	out := make([]*tracepb.Span_Event, len(es))
	for i, e := range es {
		out[i] = &tracepb.Span_Event{
			Name:                   e.Name,
			TimeUnixNano:           unixNano(e.Time.UnixNano()),
			Attributes:             keyValues(e.Attributes),
			DroppedAttributesCount: clampUint32(e.DroppedAttributeCount),
		}
	}
	return out
}

func links(ls []sdktrace.Link) []*tracepb.Span_Link {
	if len(ls) == 0 {
		return nil
	}
	out := make([]*tracepb.Span_Link, len(ls))
	for i, l := range ls {
		tid, sid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		out[i] = &tracepb.Span_Link{
			TraceId:                tid[:],
			SpanId:                 sid[:],
			TraceState:             l.SpanContext.TraceState().String(),
			Attributes:             keyValues(l.Attributes),
			DroppedAttributesCount: clampUint32(l.DroppedAttributeCount),
			Flags:                  flags(l.SpanContext.TraceFlags(), l.SpanContext),
		}
	}
	return out
}

func keyValues(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = &commonpb.KeyValue{Key: string(kv.Key), Value: value(kv.Value)}
	}
	return out
}

func iterator(it attribute.Iterator) []*commonpb.KeyValue {
	if it.Len() == 0 {
		return nil
	}
	out := make([]*commonpb.KeyValue, 0, it.Len())
	for it.Next() {
		kv := it.Attribute()
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: value(kv.Value)})
	}
	return out
}

// value is the OTLP AnyValue of v; a value of a type this code does not know is the
// string "INVALID", as the OpenTelemetry exporters send it.
func value(v attribute.Value) *commonpb.AnyValue {
	av := &commonpb.AnyValue{}
	switch v.Type() {
	case attribute.EMPTY:
	case attribute.BOOL:
		av.Value = &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}
	case attribute.INT64:
		av.Value = &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}
	case attribute.FLOAT64:
		av.Value = &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}
	case attribute.STRING:
		av.Value = &commonpb.AnyValue_StringValue{StringValue: v.AsString()}
	case attribute.BYTESLICE:
		av.Value = &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}
	case attribute.BOOLSLICE:
		av.Value = array(v.AsBoolSlice(), func(b bool) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: b}}
		})
	case attribute.INT64SLICE:
		av.Value = array(v.AsInt64Slice(), func(n int64) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: n}}
		})
	case attribute.FLOAT64SLICE:
		av.Value = array(v.AsFloat64Slice(), func(f float64) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: f}}
		})
	case attribute.STRINGSLICE:
		av.Value = array(v.AsStringSlice(), func(s string) *commonpb.AnyValue {
			return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
		})
	case attribute.SLICE:
		av.Value = array(v.AsSlice(), value)
	case attribute.MAP:
		av.Value = &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: keyValues(v.AsMap())}}
	default:
		av.Value = &commonpb.AnyValue_StringValue{StringValue: "INVALID"}
	}
	return av
}

func array[T any](vs []T, conv func(T) *commonpb.AnyValue) *commonpb.AnyValue_ArrayValue {
	out := make([]*commonpb.AnyValue, len(vs))
	for i, v := range vs {
		out[i] = conv(v)
	}
	return &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: out}}
}
