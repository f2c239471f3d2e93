def block_rm(tool_name, args, **kwargs):
    if tool_name == "terminal" and "rm -rf /" in (args.get("command") or ""):
        return {"action": "block", "message": "rm -rf / is not permitted"}
    return None


def register(ctx):
    ctx.register_hook("pre_tool_call", block_rm)
