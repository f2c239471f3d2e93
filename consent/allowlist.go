package consent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// FileName is the allowlist's name inside a Hermes home.
const FileName = "shell-hooks-allowlist.json"

// Field names of one allowlist entry, as the original writes them.
const (
	fieldEvent   = "event"
	fieldCommand = "command"
	fieldAt      = "approved_at"
	fieldMtime   = "script_mtime_at_approval"
	fieldSHA     = "script_sha256"
	fieldList    = "approvals"
	// Added for lines run by /bin/sh (dialect: claude).
	fieldProject = "project_dir"
	fieldScripts = "scripts"
	fieldWhole   = "whole_line"
)

// Pin is one file a command line runs, as fingerprinted at approval.
type Pin struct {
	// Path is the file, absolute; "" when the program was not found on $PATH.
	Path string `json:"path"`
	// SHA256 is the hex SHA-256 of its content; "" when it could not be read.
	SHA256 string `json:"sha256"`
	// Mtime is its modification time, as ScriptMtime; "" when it could not be stat'ed.
	Mtime string `json:"mtime"`
}

// Approval is one approved (event, command) pair.
type Approval struct {
	Event   string `json:"event"`
	Command string `json:"command"`
	// ApprovedAt is when the pair was approved, UTC, microsecond precision. Zero when the
	// file holds no parsable time for the entry.
	ApprovedAt time.Time `json:"approved_at"`
	// ScriptMtime is the script's modification time at approval (script_mtime_at_approval),
	// RFC 3339 UTC; "" when the script could not be stat'ed (null in the file).
	ScriptMtime string `json:"script_mtime_at_approval"`
	// ScriptSHA256 is the hex SHA-256 of the script at approval; "" when it could not be
	// read, or when an older version (the original included) wrote the entry.
	ScriptSHA256 string `json:"script_sha256"`
	// Project is the project directory the approval was given in (project_dir), for a line
	// run by /bin/sh whose files depend on it; "" for other commands. The same command in
	// another project is another approval.
	Project string `json:"project_dir,omitempty"`
	// Scripts are every file a line run by /bin/sh runs, fingerprinted at approval
	// (scripts); nil for other commands, for a line that cannot be analysed, and for entries
	// written before this field existed.
	Scripts []Pin `json:"scripts,omitempty"`
	// WholeLine, for a line run by /bin/sh that cannot be analysed, says what could not be
	// (whole_line): the approval is of the line's text, and pins none of the files it runs.
	WholeLine string `json:"whole_line,omitempty"`
}

// pairKey identifies an entry: one per (event, command) and project.
type pairKey struct{ event, command, project string }

func (a Approval) key() pairKey { return pairKey{a.Event, a.Command, a.Project} }

// entry is one element of the "approvals" list: its parsed form and every field as read, so
// that rewriting the file keeps fields this version does not know.
type entry struct {
	approval Approval
	fields   map[string]json.RawMessage
}

// document is a parsed allowlist file.
type document struct {
	top      map[string]json.RawMessage // top-level fields other than "approvals"
	entries  []entry                    // the entries that could be parsed, in file order
	problems []string                   // what could not be parsed; empty for a valid file
}

// corrupt reports whether data holds something that parseDocument could not fully read, so
// that it must be backed up before it is replaced. Empty and whitespace-only files hold
// nothing worth keeping.
func (d *document) corrupt(data []byte) bool {
	return len(d.problems) > 0 && len(bytes.TrimSpace(data)) > 0
}

// parseDocument reads an allowlist leniently: it returns every entry it can parse, the other
// top-level fields, and one line per problem. It never fails.
func parseDocument(data []byte) *document {
	d := &document{top: map[string]json.RawMessage{}}
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		d.problems = append(d.problems, "the file is empty")
		return d
	case trimmed[0] != '{':
		d.problems = append(d.problems, "the top level is not a JSON object")
		return d
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &top); err != nil {
		d.problems = append(d.problems, describeJSONError(err))
		d.salvage(trimmed)
		return d
	}
	list, ok := top[fieldList]
	delete(top, fieldList)
	d.top = top
	if ok {
		d.addList(list)
	}
	return d
}

func describeJSONError(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("invalid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	}
	return "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
}

func (d *document) addList(list json.RawMessage) {
	var items []json.RawMessage
	if err := json.Unmarshal(list, &items); err != nil || isNull(list) {
		d.problems = append(d.problems, `"approvals" is not a list`)
		return
	}
	for i, item := range items {
		d.addEntry(i, item)
	}
}

// salvage recovers the complete entries that precede a syntax error, reading the file as a
// stream of tokens.
func (d *document) salvage(data []byte) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return
	}
	for dec.More() {
		tok, err := dec.Token()
		key, isKey := tok.(string)
		if err != nil || !isKey {
			return
		}
		if key != fieldList {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return
			}
			d.top[key] = raw
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return
		}
		for i := 0; dec.More(); i++ {
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				return
			}
			d.addEntry(i, raw)
		}
		if _, err := dec.Token(); err != nil {
			return
		}
	}
}

// addEntry parses the i-th element of "approvals". Event and command must be non-empty
// strings; the other fields are read leniently (a missing or mistyped one reads as empty).
func (d *document) addEntry(i int, raw json.RawMessage) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		d.problems = append(d.problems, fmt.Sprintf("entry %d is not an object", i))
		return
	}
	event, ok1 := jsonString(fields[fieldEvent])
	command, ok2 := jsonString(fields[fieldCommand])
	if !ok1 || event == "" || !ok2 || command == "" {
		d.problems = append(d.problems, fmt.Sprintf(`entry %d has no non-empty string "event" and "command"`, i))
		return
	}
	a := Approval{Event: event, Command: command}
	if at, ok := jsonString(fields[fieldAt]); ok {
		a.ApprovedAt, _ = parseTime(at)
	}
	a.ScriptMtime, _ = jsonString(fields[fieldMtime])
	a.ScriptSHA256, _ = jsonString(fields[fieldSHA])
	a.Project, _ = jsonString(fields[fieldProject])
	a.WholeLine, _ = jsonString(fields[fieldWhole])
	a.Scripts = parsePins(fields[fieldScripts])
	d.entries = append(d.entries, entry{approval: a, fields: fields})
}

// parsePins reads the "scripts" list leniently: an element that is not an object is skipped
// (so the approval no longer matches the files it lists, and is asked again), fields of a
// wrong type read as empty.
func parsePins(raw json.RawMessage) []Pin {
	var items []map[string]json.RawMessage
	if len(raw) == 0 || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	pins := make([]Pin, 0, len(items))
	for _, it := range items {
		if it == nil {
			continue
		}
		var p Pin
		p.Path, _ = jsonString(it["path"])
		p.SHA256, _ = jsonString(it["sha256"])
		p.Mtime, _ = jsonString(it["mtime"])
		pins = append(pins, p)
	}
	return pins
}

// approvals returns the parsed entries.
func (d *document) approvals() []Approval {
	out := make([]Approval, len(d.entries))
	for i, e := range d.entries {
		out[i] = e.approval
	}
	return out
}

// put replaces every entry for a's pair and project by one entry for a, appended at the end. Fields of
// the replaced entry that this version does not know are kept.
func (d *document) put(a Approval) {
	fields := map[string]json.RawMessage{}
	kept := d.entries[:0]
	for _, e := range d.entries {
		if e.approval.key() == a.key() {
			fields = e.fields
			continue
		}
		kept = append(kept, e)
	}
	fields = approvalFields(a, fields)
	d.entries = append(kept, entry{approval: a, fields: fields})
}

// removeCommand drops every entry whose command is exactly command and returns the pairs
// it dropped (one per entry).
func (d *document) removeCommand(command string) []pairKey {
	var removed []pairKey
	kept := d.entries[:0]
	for _, e := range d.entries {
		if e.approval.Command == command {
			removed = append(removed, e.approval.key())
		} else {
			kept = append(kept, e)
		}
	}
	d.entries = kept
	return removed
}

// approvalFields returns a copy of base with a's fields set.
func approvalFields(a Approval, base map[string]json.RawMessage) map[string]json.RawMessage {
	fields := make(map[string]json.RawMessage, len(base)+5)
	for k, v := range base {
		fields[k] = v
	}
	fields[fieldEvent] = mustString(a.Event)
	fields[fieldCommand] = mustString(a.Command)
	fields[fieldAt] = mustString(formatTime(a.ApprovedAt))
	fields[fieldMtime] = stringOrNull(a.ScriptMtime)
	fields[fieldSHA] = stringOrNull(a.ScriptSHA256)
	delete(fields, fieldProject)
	delete(fields, fieldScripts)
	delete(fields, fieldWhole)
	if a.Project != "" {
		fields[fieldProject] = mustString(a.Project)
	}
	if a.Scripts != nil {
		list := make([]map[string]json.RawMessage, len(a.Scripts))
		for i, p := range a.Scripts {
			list[i] = map[string]json.RawMessage{"path": stringOrNull(p.Path), "sha256": stringOrNull(p.SHA256), "mtime": stringOrNull(p.Mtime)}
		}
		b, _ := json.Marshal(list) // raw values that are valid JSON always encode
		fields[fieldScripts] = unescapeHTML(b)
	}
	if a.WholeLine != "" {
		fields[fieldWhole] = mustString(a.WholeLine)
	}
	return fields
}

// encode renders the document: one object with "approvals" and the other fields kept, keys
// sorted, two-space indent, a final newline.
func (d *document) encode() ([]byte, error) {
	out := make(map[string]any, len(d.top)+1)
	for k, v := range d.top {
		out[k] = v
	}
	list := make([]map[string]json.RawMessage, len(d.entries))
	for i, e := range d.entries {
		list[i] = e.fields
	}
	out[fieldList] = list
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("consent: encode allowlist: %w", err)
	}
	return buf.Bytes(), nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonString decodes raw as a JSON string; ok is false for a missing value, null or another
// type.
func jsonString(raw json.RawMessage) (s string, ok bool) {
	if len(raw) == 0 || isNull(raw) {
		return "", false
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s) // a Go string always encodes
	return unescapeHTML(b)
}

func stringOrNull(s string) json.RawMessage {
	if s == "" {
		return json.RawMessage("null")
	}
	return mustString(s)
}

// unescapeHTML undoes json.Marshal's \u003c \u003e \u0026 escapes so that commands stay
// readable in the file.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	r := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	return []byte(r.Replace(string(b)))
}

// formatTime renders t the way the original (Python isoformat) does: UTC, "Z", and a
// six-digit fraction unless the microseconds are zero. The zero time renders as "".
func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.UTC().Truncate(time.Microsecond)
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += "." + fmt.Sprintf("%06d", us)
	}
	return s + "Z"
}

// parseTime reads an RFC 3339 time, also accepting one without a zone (read as UTC).
func parseTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		var err2 error
		if t, err2 = time.ParseInLocation("2006-01-02T15:04:05.999999999", s, time.UTC); err2 != nil {
			return time.Time{}, err
		}
	}
	return t.UTC(), nil
}

// sameInstant reports whether two recorded times denote the same instant. Values written by
// the original may be a microsecond off Go's (float rounding), so a difference under 2µs is
// equal; unparsable values compare as strings.
func sameInstant(a, b string) bool {
	ta, errA := parseTime(a)
	tb, errB := parseTime(b)
	if errA != nil || errB != nil {
		return a == b
	}
	d := ta.Sub(tb)
	return d > -2*time.Microsecond && d < 2*time.Microsecond
}
