package ast

import (
	"fmt"
)

type Position struct {
	Source string
	Line   int
	Column int
}

type Token struct {
	Type int
	Name string
	Str  string
	Pos  Position
	// NewLine: the token starts on a later line than the one before it ends on (for '(',
	// Lua 5.1's "ambiguous syntax" check)
	NewLine bool
}

func (self *Token) String() string {
	return fmt.Sprintf("<type:%v, str:%v>", self.Name, self.Str)
}
