package command

// Holds says what an agent's hook variable holds.
type Holds int

// What a hook variable holds.
const (
	HoldsProject    Holds = iota // the project directory (ProjectDir)
	HoldsSession                 // the session's id
	HoldsPluginRoot              // the directory of the plugin bundle the hook came from
	HoldsPluginData              // that plugin's data directory
)

// AgentVar is one variable an agent sets for the hooks written for it.
type AgentVar struct {
	Name  string
	Holds Holds
}

// AgentVars are the variables each agent documents for its hooks, by dialect: they are set in
// a hook's environment, expanded in the exec form's words, and a command line naming those
// that hold a directory is analysed with their values. It is the one table of them.
//
//   - Claude Code (code.claude.com/docs/en/hooks): CLAUDE_PROJECT_DIR for every hook;
//     CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA for a plugin's hooks. CLAUDE_ENV_FILE (a file a
//     SessionStart hook writes exports into for the agent's later shell commands) is not set:
//     the host's tools read no such file. CLAUDE_CODE_REMOTE is unset, as for a local agent.
//   - Codex (developers.openai.com/codex/hooks): hooks run in the session's directory; a
//     plugin's hooks get PLUGIN_ROOT and CLAUDE_PLUGIN_ROOT (and here their data directory as
//     PLUGIN_DATA and CLAUDE_PLUGIN_DATA). CLAUDE_PROJECT_DIR is set too, as for every hook
//     written for another agent here.
//   - Gemini CLI (geminicli.com/docs/hooks, "Environment variables"): GEMINI_PROJECT_DIR,
//     GEMINI_SESSION_ID, GEMINI_CWD, and CLAUDE_PROJECT_DIR as a compatibility alias of
//     GEMINI_PROJECT_DIR.
var AgentVars = map[string][]AgentVar{
	"claude": {
		{"CLAUDE_PROJECT_DIR", HoldsProject},
		{"CLAUDE_PLUGIN_ROOT", HoldsPluginRoot},
		{"CLAUDE_PLUGIN_DATA", HoldsPluginData},
	},
	"codex": {
		{"CLAUDE_PROJECT_DIR", HoldsProject},
		{"PLUGIN_ROOT", HoldsPluginRoot},
		{"CLAUDE_PLUGIN_ROOT", HoldsPluginRoot},
		{"PLUGIN_DATA", HoldsPluginData},
		{"CLAUDE_PLUGIN_DATA", HoldsPluginData},
	},
	"gemini": {
		{"GEMINI_PROJECT_DIR", HoldsProject},
		{"CLAUDE_PROJECT_DIR", HoldsProject},
		{"GEMINI_CWD", HoldsProject},
		{"GEMINI_SESSION_ID", HoldsSession},
	},
}

// projectVars are the variables holding the project directory for a hook of dialect (""
// and unknown dialects: $CLAUDE_PROJECT_DIR, which every command line may name).
func projectVars(dialect string) []string {
	var names []string
	for _, v := range AgentVars[dialect] {
		if v.Holds == HoldsProject {
			names = append(names, v.Name)
		}
	}
	if names == nil {
		names = []string{projectVar}
	}
	return names
}
