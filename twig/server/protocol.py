"""The line protocol (DESIGN.md, "Protocol"): requests in, replies out, as text or JSON.

A request is one UTF-8 line: a script line, optionally after a request id (``#17 kid:
approach ball``), or a JSON object (``{"id": 17, "target": "kid", "command": "approach",
"args": {"target": "ball"}}`` or ``{"id": 17, "line": "kid: approach ball"}``). Replies are
``ok 17``, ``done 17``, ``error 17 <message>``, ``value 17 <json>`` and ``event <json>``, or,
in JSON mode, one object per line: ``{"reply": "value", "id": 17, "value": ...}``.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from twig.commands import COMMAND_NAME
from twig.errors import ParseError
from twig.script.session import Reply
from twig.script.syntax import (
    MAX_MAGNITUDE,
    MAX_NUMBER_TEXT,
    Call,
    Location,
    Name,
    Value,
    check_text,
    parse_line,
)

RequestId = int | str
REQUEST_ID = re.compile(rb"#(\d{1,18})[ \t]")
JSON_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
JSON_ID_FIELD = re.compile(r'"id"\s*:\s*(?:(\d{1,18})|"([A-Za-z0-9_.:-]{1,64})")')
"""The id of a JSON request found in its text, so even a malformed one gets it back."""


@dataclass(frozen=True)
class Request:
    """One parsed request line: a call to run, or an error to report (``call`` None)."""

    id: RequestId | None
    call: Call | None
    error: str = ""


def request_id(line: bytes) -> RequestId | None:
    """The ``#17`` id at the start of a raw line, if any (so even bad lines get it back)."""
    m = REQUEST_ID.match(line)
    return int(m.group(1)) if m else None


def parse_request(line: bytes) -> Request | None:
    """Parse one line (without its newline); None for a blank line or comment without id."""
    rid = request_id(line)
    body = line[len(REQUEST_ID.match(line).group()):] if rid is not None else line
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        return Request(rid, None, f"the line is not valid UTF-8 (byte {e.start + 1})")
    if text.lstrip().startswith("{"):
        return _json_request(text, rid)
    where = Location(f"request {rid}" if rid is not None else "request")
    try:
        call = parse_line(text, where)
    except ParseError as e:
        return Request(rid, None, str(e))
    if call is None:
        return None if rid is None else Request(rid, None, "expected a command after the id")
    return Request(rid, call)


def _json_request(text: str, rid: RequestId | None) -> Request:
    try:
        obj = json.loads(text, parse_constant=_no_constant, parse_int=_json_int,
                         parse_float=_json_float)
    except (ValueError, RecursionError) as e:
        detail = str(e) if isinstance(e, ValueError) else "nested too deeply"
        found = JSON_ID_FIELD.search(text) if rid is None else None
        if found is not None:
            rid = int(found.group(1)) if found.group(1) is not None else found.group(2)
        return Request(rid, None, f"malformed JSON request: {detail}")
    if not isinstance(obj, dict):
        return Request(rid, None, "a JSON request must be an object")
    given = obj.get("id", rid)
    if given is not None and not ((isinstance(given, int) and not isinstance(given, bool))
                                  or (isinstance(given, str) and JSON_ID.fullmatch(given))):
        return Request(rid, None, "request id must be an integer or a short word")
    rid = given
    try:
        return Request(rid, json_call(obj))
    except ParseError as e:
        return Request(rid, None, str(e))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number twig accepts")


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_TEXT:
        raise ValueError(f"a number written in more than {MAX_NUMBER_TEXT} characters")
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_NUMBER_TEXT:
        raise ValueError(f"a number written in more than {MAX_NUMBER_TEXT} characters")
    return float(text)


def json_call(obj: dict[str, Any], where: Location | None = None) -> Call:
    """The call of a JSON request object (``{"target", "command", "args"}`` or ``{"line"}``;
    its ``id`` is the caller's). Raises ParseError naming what is wrong."""
    where = where or Location("request")
    unknown = sorted(set(obj) - {"id", "line", "target", "command", "args"})
    if unknown:
        raise ParseError(f"unknown request field {unknown[0]!r} (fields: id, line, or target, "
                         "command, args)")
    if "line" in obj:
        if not isinstance(obj["line"], str) or set(obj) - {"id", "line"}:
            raise ParseError('"line" must be a string, alone with "id"')
        call = parse_line(obj["line"], where)
        if call is None:
            raise ParseError('"line" holds no command')
        return call
    target, method, args = obj.get("target"), obj.get("command"), obj.get("args", {})
    if not isinstance(target, str) or not target:
        raise ParseError('expected "target": the name of an object or "world"')
    check_text(target, '"target"')
    if not isinstance(method, str) or not COMMAND_NAME.fullmatch(method):
        raise ParseError('expected "command": a command name like "move-node"')
    if not isinstance(args, dict):
        raise ParseError('"args" must be an object of parameter values')
    kwargs = tuple((check_text(k, "a key of args"), _json_value(k, v))
                   for k, v in args.items())
    return Call(target, method, (), kwargs, where=where)


def json_request(call: Call) -> dict[str, Any]:
    """A JSON request object for ``call`` (made from one: its values by name) that
    :func:`json_call` reads back to an equal call; for calls no script line can hold."""
    if call.args or call.parallel or call.keep_going:
        raise ValueError("only a call made from a JSON request has a JSON request")
    return {"target": call.target, "command": call.method,
            "args": {k: _to_json(v) for k, v in call.kwargs}}


def _to_json(v: Any) -> Any:
    if isinstance(v, Name):
        return v.text
    if isinstance(v, tuple):
        return [_to_json(c) for c in v]
    return v


def _json_value(key: str, v: Any) -> Value:
    if isinstance(v, str):
        return check_text(v, f"args[{key!r}]")
    if isinstance(v, bool) or (isinstance(v, int | float) and _in_range(v)):
        return v
    if _is_vector(v):
        return (float(v[0]), float(v[1]), float(v[2]))
    if isinstance(v, list) and all(isinstance(c, str) for c in v):
        # the values of a *args parameter, or a field
        return tuple(Name(check_text(c, f"args[{key!r}]")) for c in v)
    if isinstance(v, dict) and all(isinstance(c, str) for c in v.values()):
        return {check_text(k, f"args[{key!r}]"): check_text(c, f"args[{key!r}]")
                for k, c in v.items()}  # names to names (a joint map)
    if isinstance(v, list) and v and all(_is_vector(c) for c in v):
        return tuple((float(c[0]), float(c[1]), float(c[2])) for c in v)  # *points
    raise ParseError(f"args[{key!r}]: expected a number (from {-MAX_MAGNITUDE:g} to "
                     f"{MAX_MAGNITUDE:g}), a string, true/false, [x, y, z], a list of names or "
                     f"of [x, y, z], or an object of strings, got {json.dumps(v)[:40]}")


def _is_vector(v: Any) -> bool:
    return (isinstance(v, list) and len(v) == 3
            and all(isinstance(c, int | float) and not isinstance(c, bool) and _in_range(c)
                    for c in v))


def _in_range(x: float) -> bool:
    return math.isfinite(x) and abs(x) <= MAX_MAGNITUDE


def format_reply(reply: Reply, json_mode: bool) -> str:
    """One reply line (without newline)."""
    if json_mode:
        out: dict[str, Any] = {"reply": reply.kind}
        if reply.kind != "event":
            out["id"] = reply.id
        key = {"error": "message", "value": "value", "event": "event"}.get(reply.kind)
        if key is not None:
            out[key] = reply.data
        return json.dumps(out, separators=(",", ":"))
    # A word id is quoted ("ok" or "done" could be read as a reply kind): `value "a" 3`.
    rid = [] if reply.id is None else [json.dumps(reply.id) if isinstance(reply.id, str)
                                       else str(reply.id)]
    parts = [reply.kind, *rid]
    if reply.kind == "error":
        parts.append(" ".join(str(reply.data).split()))
    elif reply.kind in ("value", "event"):
        parts.append(json.dumps(reply.data, separators=(",", ":")))
    return " ".join(parts)
