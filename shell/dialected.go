package shell

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/internal/command"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// Dialected holds the settings of a hook written for another agent (an entry with a
// dialect), as its agent's settings file gave them and `hooks import` wrote them.
type Dialected struct {
	// ProjectDir is the project the hook belongs to (project_dir; without it, the project
	// whose .hermes directory the home is): its working directory and $CLAUDE_PROJECT_DIR,
	// unless the host sets $CLAUDE_PROJECT_DIR; "" = the host's working directory.
	ProjectDir string
	// If is the hook's condition in Claude Code's permission-rule syntax ("" = none): the
	// hook runs only for tool calls that meet it.
	If string
	// StatusMessage is shown while the hook runs (replay, hooks test).
	StatusMessage string
	// Async: the hook runs off the call's path and its answer is ignored, as its agent
	// does. AsyncRewake: likewise, but an exit code 2 gives its stderr to the session's next
	// turn.
	Async, AsyncRewake bool
	// Args, when set, is the exec form: Command is the program, run with these arguments
	// without a shell.
	Args []string
	// PluginRoot and PluginData are the plugin bundle the hook came from and its data
	// directory under the home ($CLAUDE_PLUGIN_ROOT, $CLAUDE_PLUGIN_DATA); "" for a hook of
	// a settings file.
	PluginRoot, PluginData string
	// Subagent (pre_verify only): the hook serves a subagent about to stop (its agent's
	// SubagentStop), not the agent itself (Stop). Each fires only for its own.
	Subagent bool
}

// ifCompiled is a hook's compiled If: nil when there is none, or when it cannot be
// evaluated (the hook then fires for every call, the safe side).
type ifCompiled struct{ rule *ifRule }

// dialectKeys are the keys of an entry only a hook written for another agent has.
var dialectKeys = []string{"if", "project_dir", "status_message", "async", "async_rewake", "args", "plugin_root", "plugin_data"}

// dialected reads the keys of a hook written for another agent. Each one on an entry
// without a dialect is a warning and is ignored.
func (p *parser) dialected(h *Hook, where string, fields map[string]*yaml.Node) {
	for _, k := range dialectKeys {
		n := fields[k]
		if isNull(n) {
			continue
		}
		if h.Dialect == "" {
			p.warn(n, "%s: %s is ignored: it belongs to hooks written for another agent (set dialect)", where, k)
			continue
		}
		switch k {
		case "if":
			p.ifField(h, where, n)
		case "project_dir":
			h.ProjectDir = p.dirField(where, n)
		case "plugin_root":
			h.PluginRoot = p.dirField(where, n)
		case "plugin_data":
			h.PluginData = p.dirField(where, n)
		case "status_message":
			h.StatusMessage = n.Value
		case "async", "async_rewake":
			var v bool
			if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" || n.Decode(&v) != nil {
				p.warn(n, "%s: %s must be true or false, got %q; the hook runs on the call's path", where, k, n.Value)
				continue
			}
			if k == "async" {
				h.Async = v
			} else {
				h.AsyncRewake = v
			}
		case "args":
			p.argsField(h, where, n)
		}
	}
	if h.Dialect != "" && h.ProjectDir == "" {
		h.ProjectDir = homeProject(p.file)
	}
}

// homeProject is the project a home belongs to: the directory holding it when the home is a
// project's own .hermes directory (not the one in the user's home directory); "" otherwise,
// and hooks run in the host's working directory.
func homeProject(configFile string) string {
	home := filepath.Dir(configFile)
	if filepath.Base(home) != ".hermes" || !filepath.IsAbs(home) {
		return ""
	}
	project := filepath.Dir(home)
	if userHome, err := os.UserHomeDir(); err == nil && filepath.Clean(userHome) == project {
		return ""
	}
	return project
}

// ifField compiles the hook's if condition. One that cannot be evaluated is a load
// warning (doctor reports it) and the hook fires on every call its matcher selects: a
// guard that fires too often is safer than one that never does.
func (p *parser) ifField(h *Hook, where string, n *yaml.Node) {
	h.If = strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode {
		p.warn(n, "%s: if must be a string such as \"Bash(rm *)\"; the hook fires for every call", where)
		return
	}
	if h.Dialect != DialectClaude {
		p.warn(n, "%s: if is Claude Code's; %s has no if condition, so the hook fires for every call its matcher selects", where, agentName(h.Dialect))
		return
	}
	if _, _, tool := ifInput(h.Event, nil, DefaultTools); !tool {
		p.warn(n, "%s: if %q is only evaluated on tool events; the hook fires on every %s", where, h.If, h.Event)
		return
	}
	r, err := compileIf(h.If)
	if err != nil {
		p.warn(n, "%s: %v; the hook fires for every call its matcher selects, so the guard is kept", where, err)
		return
	}
	h.ifc.rule = r
}

// dirField reads project_dir: an absolute directory (a relative one is read from the
// config file's directory).
func (p *parser) dirField(where string, n *yaml.Node) string {
	d := strings.TrimSpace(n.Value)
	if n.Kind != yaml.ScalarNode || d == "" {
		p.warn(n, "%s: project_dir must be a directory; the host's working directory is used", where)
		return ""
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(filepath.Dir(p.file), d)
	}
	return filepath.Clean(d)
}

// argsField reads the exec form: args is a list of strings, the command the program.
func (p *parser) argsField(h *Hook, where string, n *yaml.Node) {
	var args []string
	if n.Kind != yaml.SequenceNode || n.Decode(&args) != nil {
		p.warn(n, "%s: args must be a list of strings; the command runs by /bin/sh", where)
		return
	}
	h.Args = args
	h.Argv = append([]string{h.Command}, args...)
	words := []string{quoteWord(h.Command)}
	for _, a := range args {
		words = append(words, quoteWord(a))
	}
	h.Command = strings.Join(words, " ")
}

// quoteWord quotes w for a POSIX shell when it needs it.
func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`|&;<>()*?[]#~=%!{}") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// workDir is the directory a hook runs in: for a hook written for another agent its
// project ($CLAUDE_PROJECT_DIR when the host sets it, else project_dir), else opts.Cwd,
// else the host's working directory.
func (h *Hook) workDir(opts RunOptions) string {
	if h.Dialect != "" {
		if d, ok := os.LookupEnv("CLAUDE_PROJECT_DIR"); ok && d != "" {
			return d
		}
		if h.ProjectDir != "" {
			return h.ProjectDir
		}
	}
	if opts.Cwd != "" {
		return opts.Cwd
	}
	d, _ := os.Getwd()
	return d
}

// WorkDir is the directory a hook written for another agent runs in now, for hooks list and
// doctor: $CLAUDE_PROJECT_DIR, else project_dir; "" for the host's working directory (and
// for every hook in this project's own protocol).
func (h *Hook) WorkDir() string {
	if h.Dialect == "" {
		return ""
	}
	if d, ok := os.LookupEnv("CLAUDE_PROJECT_DIR"); ok && d != "" {
		return d
	}
	return h.ProjectDir
}

// Key renders the settings of a hook written for another agent: two hooks whose settings
// render alike run alike.
func (d Dialected) Key() string {
	return fmt.Sprintf("%q|%q|%q|%v|%v|%q|%q|%q|%v", d.ProjectDir, d.If, d.StatusMessage, d.Async, d.AsyncRewake, d.Args, d.PluginRoot, d.PluginData, d.Subagent)
}

// agentEnv is the variables h's agent sets for its hooks (command.AgentVars), for a hook run
// in dir during session ("" = none): the project directory (command.ProjectDir, so a host that
// sets $CLAUDE_PROJECT_DIR decides it), the session's id, and a plugin's directories. A
// variable whose value is unknown ("") is left out.
func (h *Hook) agentEnv(dir, session string) map[string]string {
	vars := map[string]string{}
	for _, v := range command.AgentVars[h.Dialect] {
		var value string
		switch v.Holds {
		case command.HoldsProject:
			value = command.ProjectDir(dir)
		case command.HoldsSession:
			value = session
		case command.HoldsPluginRoot:
			value = h.PluginRoot
		case command.HoldsPluginData:
			value = h.PluginData
		}
		if value != "" {
			vars[v.Name] = value
		}
	}
	return vars
}

// dialectCmd runs a hook written for another agent as its agent does: the command line by
// /bin/sh, or the exec form (Args) without a shell; with the variables its agent sets
// (agentEnv) in its environment and expanded in the exec form's words. A plugin's data
// directory is created when missing.
func (h *Hook) dialectCmd(ctx context.Context, dir, session string) *exec.Cmd {
	vars := h.agentEnv(dir, session)
	if h.PluginData != "" {
		_ = os.MkdirAll(h.PluginData, 0o700) // a failure shows as the hook's own error
	}
	var cmd *exec.Cmd
	if len(h.Args) == 0 {
		cmd = exec.CommandContext(ctx, "/bin/sh", "-c", h.Command)
	} else {
		argv := make([]string, len(h.Argv))
		for i, a := range h.Argv {
			argv[i] = command.ExpandVars(a, vars)
		}
		cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	}
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for _, v := range command.AgentVars[h.Dialect] { // in the table's order, for a stable environment
		if value, ok := vars[v.Name]; ok {
			cmd.Env = append(cmd.Env, v.Name+"="+value)
		}
	}
	return cmd
}

// ambiguous says why a tool call cannot be shown to the hook in its agent's names: it spells
// an argument both ways (path and file_path) with different values. "" when it can.
func (h *Hook) ambiguous(kwargs map[string]any) string {
	switch h.Event {
	case hooknames.PreToolCall, hooknames.PostToolCall, hooknames.PostToolFailure:
		name, _ := kwargs["tool_name"].(string)
		args, _ := kwargs["args"].(map[string]any)
		return h.toolTable().Conflict(name, args)
	}
	return ""
}

// meets reports whether the hook's if condition (if any) selects the call.
func (h *Hook) meets(kwargs map[string]any, dir string) bool {
	if h.ifc.rule == nil {
		return true
	}
	tool, input, ok := ifInput(h.Event, kwargs, h.toolTable())
	if !ok {
		return true
	}
	return h.ifc.rule.match(tool, input, dir)
}
