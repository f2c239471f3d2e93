package engine

import "github.com/hermes-hooks/hermes/hookspec"

// hookNames lists every hook in the documented order.
var hookNames = hookspec.Names()
