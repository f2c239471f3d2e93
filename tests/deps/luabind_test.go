package deps

import (
	"slices"
	"testing"
)

// luabindSurface is what luabind exports: what engine calls (and the schema test reads),
// the rest under luabind/internal/. Adding a name is a deliberate edit of this table.
var luabindSurface = []string{
	"DefaultMemoryLimit", "DryRunRefusal", "Error", "Error.Error", "Handler", "Handler.Call", "Handler.Close",
	"Kind", "Kind.String", "KindBusy", "KindCanceled", "KindConvert", "KindLimit", "KindLoad", "KindRuntime",
	"KindSyntax", "KindTimeout", "LoadHandler", "LoadPlugin", "Next", "Options", "Plugin", "Plugin.CallInto",
	"Plugin.CallTimed", "Plugin.CallWrap", "Plugin.Close", "Plugin.Interrupt", "Plugin.MaxStates", "Plugin.Pure",
	"Plugin.Registrations", "Plugin.Wraps", "Registration", "Table", "TableWriter", "TableWriter.List", "TableWriter.Messages",
	"TableWriter.String", "TableWriter.Value", "Timing",
}

// TestLuabindSurface holds luabind's exported names to the table, with no alias of another
// package's type (the hook vocabulary is hookspec's: Func, Object, Permissions, Store).
func TestLuabindSurface(t *testing.T) {
	got, aliases := exported(t, "../../luabind")
	if len(aliases) > 0 {
		t.Errorf("luabind declares aliases of other packages' types: %v (use the type where it is defined)", aliases)
	}
	for _, n := range got {
		if !slices.Contains(luabindSurface, n) {
			t.Errorf("luabind exports %s, which luabindSurface in tests/deps does not list: keep it unexported or under luabind/internal, or add it on purpose", n)
		}
	}
	for _, n := range luabindSurface {
		if !slices.Contains(got, n) {
			t.Errorf("luabind no longer exports %s: remove it from luabindSurface", n)
		}
	}
}
