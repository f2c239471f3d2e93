package luabind

import (
	"regexp"

	lua "github.com/yuin/gopher-lua"
)

const maxCachedRegexps = 256

// openRe builds the re module: Go regular expressions (RE2 syntax).
//
//	re.match(s, pattern)          -> true if pattern matches anywhere in s
//	re.find(s, pattern)           -> the first match and its captures, or nil
//	re.find_all(s, pattern, n?)   -> an array of matches (at most n)
//	re.gsub(s, pattern, repl)     -> new string, number of replacements; repl is a
//	                                 string with $1 / ${name} references, or a function
//	                                 called with the match and its captures
//	re.quote(s)                   -> s with every metacharacter escaped
func openRe(L *lua.LState, _ *env) lua.LValue {
	cache := map[string]*regexp.Regexp{}
	compile := func(L *lua.LState, n int) *regexp.Regexp {
		pat := L.CheckString(n)
		if re, ok := cache[pat]; ok {
			return re
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			L.ArgError(n, "invalid regular expression: "+err.Error())
		}
		if len(cache) >= maxCachedRegexps {
			clear(cache)
		}
		cache[pat] = re
		return re
	}
	mod := L.CreateTable(0, 5)
	mod.RawSetString("match", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		L.Push(lua.LBool(compile(L, 2).MatchString(s)))
		return 1
	}))
	mod.RawSetString("find", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		m := compile(L, 2).FindStringSubmatch(s)
		if m == nil {
			L.Push(lua.LNil)
			return 1
		}
		for _, part := range m {
			L.Push(lua.LString(part))
		}
		return len(m)
	}))
	mod.RawSetString("find_all", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		all := compile(L, 2).FindAllString(s, L.OptInt(3, -1))
		t := L.CreateTable(len(all), 0)
		for i, m := range all {
			t.RawSetInt(i+1, lua.LString(m))
		}
		L.Push(t)
		return 1
	}))
	mod.RawSetString("gsub", L.NewFunction(func(L *lua.LState) int {
		s := L.CheckString(1)
		re := compile(L, 2)
		count := 0
		var out string
		switch repl := L.Get(3).(type) {
		case lua.LString:
			out = re.ReplaceAllStringFunc(s, func(m string) string {
				count++
				return string(re.ExpandString(nil, string(repl), m, re.FindStringSubmatchIndex(m)))
			})
		case *lua.LFunction:
			out = re.ReplaceAllStringFunc(s, func(m string) string {
				count++
				sub := re.FindStringSubmatch(m)
				L.Push(repl)
				for _, part := range sub {
					L.Push(lua.LString(part))
				}
				L.Call(len(sub), 1)
				r := L.Get(-1)
				L.Pop(1)
				if str, ok := r.(lua.LString); ok {
					return string(str)
				}
				if num, ok := r.(lua.LNumber); ok {
					return num.String()
				}
				return m
			})
		default:
			L.ArgError(3, "string or function expected")
		}
		L.Push(lua.LString(out))
		L.Push(lua.LNumber(count))
		return 2
	}))
	mod.RawSetString("quote", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString(regexp.QuoteMeta(L.CheckString(1))))
		return 1
	}))
	return mod
}
