package lua

// fieldCacheCases change, in the middle of loops that look them up, what a global or a
// field holds: the cached lookups see every change, as C Lua 5.1 does (run by TestLikeLua51).
var fieldCacheCases = []struct{ name, src, want string }{
	{"a global rewritten in the loop", `
local out = {}
for i = 1, 20 do
  out[#out + 1] = tostring(g)
  g = i
end
print(table.concat(out, ","))`, "nil,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"},
	{"a field rewritten, deleted, and found through __index again", `
local base = {f = "base"}
local t = setmetatable({f = "own"}, {__index = base})
local out = {}
for i = 1, 20 do
  out[#out + 1] = t.f
  if i == 5 then t.f = "changed" end
  if i == 10 then t.f = nil end
  if i == 15 then base.f = "base2" end
end
print(table.concat(out, ","))`, "own,own,own,own,own,changed,changed,changed,changed,changed,base,base,base,base,base,base2,base2,base2,base2,base2"},
	{"one constant, two tables", `
local a, b = {k = 1}, {k = 2}
local s = 0
for i = 1, 20 do
  local t = (i % 2 == 0) and a or b
  s = s + t.k
  if i == 10 then a.k = 10 end
end
print(s)`, "75"},
	{"a library function replaced", `
local out = {}
for i = 1, 12 do
  out[#out + 1] = string.upper("x")
  if i == 6 then string.upper = function() return "y" end end
end
print(table.concat(out))`, "XXXXXXyyyyyy"},
	{"setfenv in the middle", `
local function f() return v end
v = "global"
local out = {}
for i = 1, 12 do
  out[#out + 1] = f()
  if i == 6 then setfenv(f, {v = "env"}) end
end
print(table.concat(out, ","))`, "global,global,global,global,global,global,env,env,env,env,env,env"},
	{"rawset and table.insert-like writes", `
local t = {x = 1}
local out = {}
for i = 1, 12 do
  out[#out + 1] = t.x
  rawset(t, "x", i * 10)
end
print(table.concat(out, ","))`, "1,10,20,30,40,50,60,70,80,90,100,110"},
}
