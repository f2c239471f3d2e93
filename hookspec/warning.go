package hookspec

import "fmt"

// Warning is one problem found while loading hooks: the file, the line where known, and
// what is wrong, for one line of output. Warnings never stop the other hooks from loading.
type Warning struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Msg  string `json:"message"`
}

// String renders the warning as "file:line: msg", leaving out what is unknown.
func (w Warning) String() string {
	switch {
	case w.File != "" && w.Line > 0:
		return fmt.Sprintf("%s:%d: %s", w.File, w.Line, w.Msg)
	case w.File != "":
		return w.File + ": " + w.Msg
	case w.Line > 0:
		return fmt.Sprintf("line %d: %s", w.Line, w.Msg)
	}
	return w.Msg
}
