"""twig for AI agents: the Model Context Protocol server of ``twig mcp`` (docs/agents.md)."""

from twig.mcp.bridge import WorldBridge
from twig.mcp.server import build_server, mcp_main

__all__ = ["WorldBridge", "build_server", "mcp_main"]
