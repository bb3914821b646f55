"""Scripts: the ``name: method args`` language, its interpreter, and the sessions through
which scripts and remote clients run registered commands (see docs/script.md)."""

from twig.script.interpreter import Interpreter, run_script
from twig.script.session import Reply, Session
from twig.script.syntax import Call, Location, Name, format_call, parse_line, parse_script

__all__ = ["Call", "Interpreter", "Location", "Name", "Reply", "Session", "format_call",
           "parse_line", "parse_script", "run_script"]
