"""``twig mcp --http``: streamable HTTP on loopback, with the token rule of ``twig serve``."""

import asyncio
import socket
import subprocess
import sys
import time

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from twig.cli import main


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def talk(url: str, token: str | None) -> float:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
            Client(streamable_http_client(url, http_client=http)) as client:
        ball = await client.call_tool("body_where", {"target": "ball"})
        return ball.structured_content["value"][0]


def test_http_with_a_token(scene):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "twig", "mcp", scene, "--http",
                               "--port", str(port), "--token", "s3cret"],
                              stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/mcp"
        deadline = time.monotonic() + 120
        while True:  # the server is up once its port answers
            try:
                refused = httpx2.post(url, json={}, timeout=5)
                break
            except httpx2.TransportError:
                assert time.monotonic() < deadline and server.poll() is None
                time.sleep(0.5)
        assert refused.status_code == 401  # no token
        assert asyncio.run(talk(url, "s3cret")) == pytest.approx(1.5, abs=0.02)
        with pytest.raises(Exception):  # noqa: B017  (the SDK raises its own error types)
            asyncio.run(talk(url, "wrong"))
    finally:
        server.terminate()
        server.wait(10)


def test_off_this_machine_only_with_a_token(capsys, scene):
    assert main(["mcp", scene, "--http", "--host", "0.0.0.0"]) == 2
    assert "needs a token" in capsys.readouterr().err
