package hookspec

// Permissions are the side effects a Lua hook declares in its manifest. The zero value
// allows none of them.
type Permissions struct {
	FS   []string `json:"fs,omitempty"`   // paths file I/O may touch
	Net  []string `json:"net,omitempty"`  // hosts the http module may reach
	Exec []string `json:"exec,omitempty"` // programs the exec module may run
	Env  []string `json:"env,omitempty"`  // variables os.getenv may read ("*" = all)
}
