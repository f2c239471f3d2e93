package lua

// SetHookLibraries sets what runHere installs in each state it makes (hookLibraries).
func SetHookLibraries(install func(*LState)) { hookLibraries = install }
