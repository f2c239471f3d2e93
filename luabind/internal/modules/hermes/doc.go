// Package hermes is the hermes module of hooks: hermes.home, hermes.version, hermes.name,
// and the functions the host gives every hook (Options.HostFuncs, e.g. run_agent), adapted
// per state by the core so that their arguments and results cross as every value does and
// their run counts as a wait outside Lua.
//
// The Module is the hook's, read-only; an Instance belongs to one state.
package hermes
