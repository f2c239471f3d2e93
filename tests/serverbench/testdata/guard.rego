# The reference guard: blocks terminal commands that contain `rm -rf`, answering the decision
# home/plugins/rm-rf-guard (the same guard in Lua) answers for the same input (the
# pre_tool_call kwargs). No decision (undefined) lets the call through.
package guard

decision := {"action": "block", "message": sprintf("Blocked: `%s` is destructive and not permitted.", [input.args.command])} if {
	input.tool_name == "terminal"
	is_string(input.args.command)
	contains(input.args.command, "rm -rf")
}
