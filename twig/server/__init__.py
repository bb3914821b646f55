"""The remote-control server: a world in real time, driven by many clients over TCP (a
telnet-friendly line protocol) and WebSocket (see docs/protocol.md)."""

from twig.server.record import replay
from twig.server.run import ServerThread, make_server, serve_forever
from twig.server.server import Limits, Server

__all__ = ["Limits", "Server", "ServerThread", "make_server", "replay", "serve_forever"]
