"""Runs a Python plugin or gateway hook for the hook engine, unchanged, in its own process.

Started as: python3 -c <this file> <mode> <dir> <memory bytes>
  mode "plugin": imports the package in <dir> and calls its register(ctx);
  mode "gateway": imports <dir>/handler.py and finds its handle(event_type, context);
  with "describe" after the mode, it prints what it found (and the interpreter's own path,
  sys.executable, which later co-processes run directly) as one JSON line and exits.
Otherwise it answers one JSON line per request line on stdin:
  {"request_id": ..., "index": i, "hook": name, "kwargs": {...}}      (plugin)
  {"request_id": ..., "event": name, "context": {...}}                 (gateway)
with {"request_id": ..., "return": value} or {"request_id": ..., "error": text,
"where": "file:line"}. Answers go to a copy of the original stdout; file descriptor 1 and
sys.stdout are the process's stderr, so that what a callback prints cannot be taken for an
answer.
"""
import asyncio
import importlib.util
import inspect
import json
import logging
import os
import sys
import tempfile
import traceback

MIN_VERSION = (3, 9)


class Namespace(dict):
    """A dict whose keys are attributes too: event.text as well as event["text"]."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def gateway_event(value):
    """pre_gateway_dispatch's event as the original hands it: attributes, and .source."""
    if not isinstance(value, dict):
        return value
    ev = Namespace(value)
    if "source" not in ev:
        ev["source"] = Namespace(value)
    elif isinstance(ev["source"], dict):
        ev["source"] = Namespace(ev["source"])
    return ev


class Context:
    """What register(ctx) is given."""

    def __init__(self, name, directory):
        self.name = name
        self.plugin_dir = directory
        self.registrations = []

    def register_hook(self, name, fn):
        if not callable(fn):
            raise TypeError("register_hook(%r, ...): the callback is not callable" % (name,))
        self.registrations.append((str(name), fn))

    def __getattr__(self, name):
        # Anything else the original's context offers (register_tool, ...): accepted, unused.
        def ignored(*args, **kwargs):
            return None

        return ignored


def where(tb, directory):
    """file:line of the innermost frame of tb in the hook's directory, else the innermost."""
    frames = traceback.extract_tb(tb)
    prefix = os.path.join(os.path.realpath(directory), "")
    for fr in reversed(frames):
        if os.path.realpath(fr.filename).startswith(prefix):
            return "%s:%d" % (fr.filename, fr.lineno)
    for fr in reversed(frames):
        if fr.filename != "<string>":
            return "%s:%d" % (fr.filename, fr.lineno)
    return ""


def failure(exc, directory):
    if isinstance(exc, SyntaxError) and exc.filename:
        return {"error": "SyntaxError: %s" % (exc.msg,), "where": "%s:%s" % (exc.filename, exc.lineno or 0)}
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return {"error": text, "where": where(exc.__traceback__, directory)}


def load_plugin(directory):
    name = os.path.basename(os.path.normpath(directory))
    init = os.path.join(directory, "__init__.py")
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[directory])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    register = getattr(module, "register", None)
    if not callable(register):
        raise LookupError("%s defines no register(ctx) function" % (init,))
    ctx = Context(name, directory)
    register(ctx)
    return ctx.registrations


def load_gateway(directory):
    path = os.path.join(directory, "handler.py")
    name = "hermes_gateway_hook_" + os.path.basename(os.path.normpath(directory)).replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    handle = getattr(module, "handle", None)
    if not callable(handle):
        raise LookupError("%s defines no handle(event_type, context) function" % (path,))
    return [("handle", handle)]


def line_of(fn):
    try:
        code = inspect.unwrap(fn).__code__
        return code.co_filename, code.co_firstlineno
    except (AttributeError, ValueError):
        return "", 0


def describe(mode, directory):
    if sys.version_info < MIN_VERSION:
        return {"error": "Python %d.%d or later is needed, this is %d.%d" % (MIN_VERSION + sys.version_info[:2])}
    try:
        regs = load_plugin(directory) if mode == "plugin" else load_gateway(directory)
    except BaseException as exc:  # SystemExit included: the load failed
        return failure(exc, directory)
    hooks = []
    for name, fn in regs:
        f, line = line_of(fn)
        hooks.append({"name": name, "file": f, "line": line})
    return {"hooks": hooks, "python": "%d.%d.%d" % sys.version_info[:3], "executable": EXECUTABLE}


def to_json(value):
    return json.dumps(value, ensure_ascii=False, default=str, allow_nan=False)


def serve(mode, directory, out):
    loop = asyncio.new_event_loop()
    try:
        regs = load_plugin(directory) if mode == "plugin" else load_gateway(directory)
        broken = None
    except BaseException as exc:
        regs, broken = [], failure(exc, directory)
    for line in sys.stdin:
        req = json.loads(line)
        answer = {"request_id": req.get("request_id")}
        if broken is not None:
            answer.update(broken)
        else:
            answer.update(call(mode, regs, req, loop, directory))
        try:
            text = to_json(answer)
        except (TypeError, ValueError) as exc:
            text = to_json({"request_id": req.get("request_id"),
                            "error": "the callback returned a value that is not JSON: %s" % (exc,), "where": ""})
        out.write(text + "\n")
        out.flush()


def call(mode, regs, req, loop, directory):
    try:
        if mode == "plugin":
            i = req.get("index", 0)
            if i >= len(regs) or regs[i][0] != req.get("hook"):
                return {"error": "register(ctx) registered other hooks than when the plugin was loaded; reload it", "where": ""}
            kwargs = dict(req.get("kwargs") or {})
            if req.get("hook") == "pre_gateway_dispatch" and "event" in kwargs:
                kwargs["event"] = gateway_event(kwargs["event"])
            result = regs[i][1](**kwargs)
        else:
            result = regs[0][1](req.get("event"), req.get("context") or {})
        if inspect.isawaitable(result):
            result = loop.run_until_complete(result)
        return {"return": result}
    except BaseException as exc:  # a callback that raises is reported, never the end of the host
        if isinstance(exc, KeyboardInterrupt):
            raise
        return failure(exc, directory)


# The interpreter's path, taken before any hook code runs.
EXECUTABLE = sys.executable or ""


def main():
    mode, directory, memory = sys.argv[1], sys.argv[2], int(sys.argv[3])
    describing = len(sys.argv) > 4 and sys.argv[4] == "describe"
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if memory > 0:
        try:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        except (ImportError, ValueError, OSError):
            pass
    # Only the approved sources run: no bytecode is read from (or written to) the hook's
    # __pycache__, where a file claiming an approved source's time and size would be run in
    # its place. The prefix is a private name that does not exist.
    sys.dont_write_bytecode = True
    prefix = tempfile.mkdtemp(prefix="hermes-pycache-")
    os.rmdir(prefix)
    sys.pycache_prefix = prefix
    # The hook's own directory's parent is searched last (its package imports itself by
    # name), after the standard library and the installed packages, so a sibling directory
    # cannot take a module's place; the working directory, which python3 -c puts first, is
    # not searched at all (it is the project an agent works in, not the hook's).
    parent = os.path.dirname(os.path.normpath(directory))
    sys.path[:] = [p for p in sys.path if p not in ("", os.getcwd())] + [parent]
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    if describing:
        out.write(to_json(describe(mode, directory)) + "\n")
        out.flush()
        return
    serve(mode, directory, out)


main()
