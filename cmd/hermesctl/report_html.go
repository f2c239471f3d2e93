package main

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/gateway/runner"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hermes-hooks/hermes/engine"
)

// report is what the HTML timeline of a replay shows.
type report struct {
	Title      string
	Transcript string
	Home       string
	TotalMS    float64
	Hooks      int // hook calls
	Failed     int // of them failed
	Blocked    int // tool calls blocked
	Rows       []reportRow
	Slowest    []reportRow
	Flow       []reportLine
}

// reportRow is one span as a bar on the timeline.
type reportRow struct {
	Kind     string  // run, host, fire, hook, store: what the span is
	Name     string  // the span's name
	Depth    int     // in the span tree
	Left     float64 // start, in percent of the run
	Width    float64 // length, in percent of the run
	MS       float64 // duration in milliseconds
	Class    string  // the bar's colour: ok, error, timeout, cancelled, skipped, blocked, decided
	Label    string  // what the bar says: the decision, the status
	Event    string  // the hook point of a hook
	Details  string  // every attribute, for the tooltip
	Decision string
	Status   string
	Flip     bool // the label goes left of the bar, which ends far right
	Inside   bool // the label goes inside the bar, which spans most of the run

	callID string // the tool call of an execute_tool span
}

// reportLine is one line of the conversation: what flowed, or a note of the runner.
type reportLine struct {
	Kind, Text string
}

// buildReport lays spans out on one timeline (a tree in the order spans started) beside the
// conversation the runner recorded.
func buildReport(spans []sdktrace.ReadOnlySpan, tl runner.Timeline, transcript, home string) report {
	inHome := strings.NewReplacer(home+string(filepath.Separator), "") // shell hooks in the home, shown relative to it
	rep := report{Title: "hermesctl replay " + transcript, Transcript: transcript, Home: home}
	if len(spans) == 0 {
		return rep
	}
	start, end := spans[0].StartTime(), spans[0].EndTime()
	ids := map[trace.SpanID]bool{}
	for _, s := range spans {
		ids[s.SpanContext().SpanID()] = true
		if s.StartTime().Before(start) {
			start = s.StartTime()
		}
		if s.EndTime().After(end) {
			end = s.EndTime()
		}
	}
	total := end.Sub(start)
	rep.TotalMS = ms(total)
	children := map[trace.SpanID][]sdktrace.ReadOnlySpan{}
	var roots []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if p := s.Parent(); p.IsValid() && ids[p.SpanID()] {
			children[p.SpanID()] = append(children[p.SpanID()], s)
		} else {
			roots = append(roots, s)
		}
	}
	byStart := func(a, b sdktrace.ReadOnlySpan) int { return a.StartTime().Compare(b.StartTime()) }
	var walk func(s sdktrace.ReadOnlySpan, depth int)
	walk = func(s sdktrace.ReadOnlySpan, depth int) {
		row := newRow(s, depth, start, total)
		row.Name, row.Label = inHome.Replace(row.Name), inHome.Replace(row.Label)
		rep.Rows = append(rep.Rows, row)
		if row.Kind == "hook" {
			rep.Hooks++
			if row.Status != "ok" && row.Status != "skipped" {
				rep.Failed++
			}
		}
		if row.Kind == "fire" && row.Decision == "block" {
			rep.Blocked++
		}
		kids := children[s.SpanContext().SpanID()]
		slices.SortStableFunc(kids, byStart)
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	slices.SortStableFunc(roots, byStart)
	for _, r := range roots {
		walk(r, 0)
	}
	labelHostRows(rep.Rows, tl)
	for i := range rep.Rows {
		r := &rep.Rows[i]
		if r.Label != "" {
			r.Details = r.Label + "\n\n" + r.Details
		}
		r.Label = truncate(r.Label, 110) // the whole is in the tooltip
	}
	for _, r := range rep.Rows {
		if r.Kind == "hook" {
			rep.Slowest = append(rep.Slowest, r)
		}
	}
	slices.SortStableFunc(rep.Slowest, func(a, b reportRow) int { return cmp.Compare(b.MS, a.MS) })
	rep.Slowest = rep.Slowest[:min(len(rep.Slowest), 10)]
	for _, e := range tl.Events {
		switch {
		case e.Event == "flow":
			rep.Flow = append(rep.Flow, reportLine{"flow", e.Flow})
		case e.Note != "":
			rep.Flow = append(rep.Flow, reportLine{"note", e.Note})
		}
	}
	return rep
}

// labelHostRows labels the runner's rows with what flowed there, so that the timeline reads
// as the conversation: each message span with the message that came in (they are in the same
// order), each tool call span with the call and the result the model saw (by tool call id).
func labelHostRows(rows []reportRow, tl runner.Timeline) {
	var messages []*reportRow
	calls := map[string][]*reportRow{}
	for i := range rows {
		switch r := &rows[i]; {
		case r.Kind == "host" && strings.HasPrefix(r.Name, "message "):
			messages = append(messages, r)
		case r.Kind == "host" && r.callID != "":
			calls[r.callID] = append(calls[r.callID], r)
		}
	}
	for _, e := range tl.Events {
		if e.Event != "flow" {
			continue
		}
		switch f := e.Flow; {
		case strings.HasPrefix(f, "message in ") && len(messages) > 0:
			messages[0].Label, messages = f, messages[1:]
		case strings.HasPrefix(f, "tool call "):
			id, rest, _ := strings.Cut(strings.TrimPrefix(f, "tool call "), ": ")
			if rs := calls[id]; len(rs) > 0 && rs[0].Label == "" {
				rs[0].Label = rest
			}
		case strings.HasPrefix(f, "tool result "):
			id, rest, _ := strings.Cut(strings.TrimPrefix(f, "tool result "), ", as the model sees it: ")
			if rs := calls[id]; len(rs) > 0 {
				rs[0].Label += "  ->  " + rest
				calls[id] = rs[1:] // the next call with this id is another turn's
			}
		}
	}
}

// newRow is the bar of span s, depth deep, on a timeline from start lasting total.
func newRow(s sdktrace.ReadOnlySpan, depth int, start time.Time, total time.Duration) reportRow {
	attrs := map[attribute.Key]string{}
	var details []string
	for _, kv := range s.Attributes() {
		attrs[kv.Key] = kv.Value.Emit()
		details = append(details, fmt.Sprintf("%s=%s", kv.Key, kv.Value.Emit()))
	}
	d := s.EndTime().Sub(s.StartTime())
	row := reportRow{Name: s.Name(), Depth: depth, MS: ms(d), Kind: "host", Class: "host",
		Event: attrs[engine.AttrEvent], Details: strings.Join(details, "\n")}
	if total > 0 {
		row.Left = 100 * float64(s.StartTime().Sub(start)) / float64(total)
		row.Width = 100 * float64(d) / float64(total)
		switch end := row.Left + row.Width; {
		case end <= 60: // room on the right
		case row.Left >= 40:
			row.Flip = true
		default:
			row.Inside = true
		}
	}
	switch {
	case depth == 0:
		row.Kind = "run"
	case attrs[engine.AttrToolCallID] != "" && strings.HasPrefix(s.Name(), "execute_tool "):
		row.callID = attrs[engine.AttrToolCallID]
	case strings.HasPrefix(s.Name(), "fire "):
		row.Kind, row.Decision = "fire", attrs[engine.AttrDecision]
		row.Class, row.Label = "fire", row.Decision
		if row.Decision == "block" {
			row.Class, row.Label = "blocked", "blocked by "+attrs[engine.AttrDecisionHook]+": "+attrs[engine.AttrDecisionReason]
		} else if h := attrs[engine.AttrDecisionHook]; h != "" {
			row.Label += " by " + h
		}
	case strings.HasPrefix(s.Name(), "store."):
		row.Kind, row.Class = "store", "store"
		row.Label = attrs[engine.AttrStoreKey]
		if s.Status().Code == codes.Error {
			row.Class, row.Label = "error", s.Status().Description
		}
	case attrs[engine.AttrHookName] != "":
		row.Kind, row.Status, row.Decision = "hook", attrs[engine.AttrHookStatus], attrs[engine.AttrHookDecision]
		row.Class, row.Label = hookClass(row.Status, row.Decision), row.Status
		if row.Decision != "" && row.Decision != "none" {
			row.Label = row.Decision
		}
		if r := attrs[engine.AttrHookReason]; r != "" {
			row.Label += ": " + r
		}
		if e := attrs[engine.AttrHookError]; e != "" {
			row.Label += ": " + e
		}
		if attrs[engine.AttrRechecked] == "true" {
			row.Label += " (asked again)"
		}
		if n, ok := attrs[engine.AttrNexts]; ok { // a wrap hook
			row.Label += " (next ×" + n + ")"
			if n == "0" && row.Status == "ok" {
				row.Label += ": answered without the call"
			}
		}
	}
	return row
}

// hookClass is the colour of a hook's bar: its status, or what it decided when it ran fine.
func hookClass(status, decision string) string {
	switch {
	case status == "ok" && decision == "block":
		return "blocked"
	case status == "ok" && decision != "none" && decision != "":
		return "decided"
	case status == "ok", status == "error", status == "timeout", status == "skipped":
		return status
	}
	return "cancelled" // cancelled, busy: the hook did not get to answer
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// writeReport writes rep as one self-contained HTML page: no script, no external asset.
func writeReport(w io.Writer, rep report) error {
	return reportTemplate().Execute(w, rep)
}

// reportTemplate is parsed at first use: only replay and demo with --html write a report.
var reportTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct":    func(f float64) string { return fmt.Sprintf("%.3f%%", f) },
		"indent": func(d int) string { return fmt.Sprintf("%.1fem", float64(d)*1.1) },
		"ms":     func(f float64) string { return fmt.Sprintf("%.2f ms", f) },
	}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1d2330; background: #fff; }
h1 { font-size: 1.3em; margin: 0 0 .3em; }
h2 { font-size: 1.05em; margin: 1.6em 0 .5em; }
.meta { color: #5a6270; }
.summary span { display: inline-block; margin-right: 1.5em; }
.legend span { display: inline-block; padding: 0 .6em; margin: .6em .4em 0 0; border-radius: 3px; color: #fff; }
#timeline { border: 1px solid #d8dce3; border-radius: 4px; }
.row { display: grid; grid-template-columns: 26em 1fr 6em; align-items: center; border-bottom: 1px solid #eef0f3; min-height: 1.6em; }
.row:hover { background: #f5f7fa; }
.name { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding: 0 .5em; }
.track { position: relative; height: 1.25em; overflow: hidden; }
.bar { position: absolute; top: .15em; bottom: .15em; min-width: 2px; border-radius: 2px; }
.bar .label { position: absolute; left: 100%; margin-left: .4em; white-space: nowrap; font-size: .92em; color: #1d2330; }
.dur { text-align: right; padding-right: .5em; color: #5a6270; font-variant-numeric: tabular-nums; }
.run { background: #9aa3b1; } .host { background: #7d8fb3; } .fire { background: #b6c2d9; }
.ok { background: #2e9e5b; } .decided { background: #2f6fd1; } .blocked { background: #8b1fa9; }
.error { background: #d6342c; } .timeout { background: #e08a00; } .cancelled { background: #6d6d6d; }
.skipped { background: #c5cad3; } .store { background: #13a3a3; }
.row.kind-run, .row.kind-host { background: #f0f2f6; }
.row.kind-run .name, .row.kind-host .name { font-weight: 600; }
.bar.flip .label { left: auto; right: 100%; margin: 0 .4em 0 0; }
.bar.inside { overflow: hidden; }
.bar.inside .label { left: .4em; right: .4em; margin: 0; color: #fff; overflow: hidden; text-overflow: ellipsis; }
table { border-collapse: collapse; }
td, th { text-align: left; padding: .2em .8em .2em 0; border-bottom: 1px solid #eef0f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
#conversation li.note { color: #5a6270; font-style: italic; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="meta">home {{.Home}}</p>
<p class="summary"><span>{{ms .TotalMS}} in all</span><span>{{.Hooks}} hook calls</span><span>{{.Failed}} failed</span><span>{{.Blocked}} tool calls blocked</span></p>
<p class="legend"><span class="ok">ok</span><span class="decided">decided</span><span class="blocked">blocked</span><span class="error">error</span><span class="timeout">timeout</span><span class="cancelled">cancelled / busy</span><span class="skipped">skipped</span><span class="store">store call</span></p>
<h2>Timeline</h2>
<div id="timeline">
{{- range .Rows}}
<div class="row kind-{{.Kind}}" data-kind="{{.Kind}}" data-status="{{.Status}}" data-decision="{{.Decision}}" title="{{.Details}}">
<div class="name" style="padding-left: {{indent .Depth}}">{{.Name}}</div>
<div class="track"><div class="bar {{.Class}}{{if .Flip}} flip{{end}}{{if .Inside}} inside{{end}}" style="left: {{pct .Left}}; width: {{pct .Width}}">{{if .Label}}<span class="label">{{.Label}}</span>{{end}}</div></div>
<div class="dur">{{ms .MS}}</div>
</div>
{{- end}}
</div>
<h2>Slowest hooks</h2>
<table id="slowest">
<tr><th>hook</th><th>event</th><th>status</th><th>decision</th><th>duration</th></tr>
{{- range .Slowest}}
<tr><td>{{.Name}}</td><td>{{.Event}}</td><td><span class="{{.Class}}">&nbsp;</span> {{.Status}}</td><td>{{.Decision}}</td><td class="num">{{ms .MS}}</td></tr>
{{- end}}
</table>
<h2>Conversation</h2>
<ol id="conversation">
{{- range .Flow}}
<li class="{{.Kind}}">{{.Text}}</li>
{{- end}}
</ol>
</body>
</html>
`))
})
