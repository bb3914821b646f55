"""Served worlds for the server tests (free ports) and a raw line client, as telnet is."""

import socket

import pytest

import twig
from twig.server import Limits, ServerThread, make_server


def playground() -> twig.World:
    """A ball and two children standing apart."""
    world = twig.World(seed=0)
    world.add_ball("ball", position=(0, 0.11, 2))
    world.add_humanoid("kid", position=(-1, 0, 0), height=1.1)
    world.add_humanoid("kid2", position=(1, 0, 0), height=1.1)
    return world


class Telnet:
    """A raw socket client sending lines and reading reply lines."""

    def __init__(self, port: int, rcvbuf: int | None = None) -> None:
        self.sock = socket.socket()
        if rcvbuf is not None:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect(("127.0.0.1", port))
        self.buffer = b""

    def send(self, line: bytes | str) -> None:
        data = line.encode() if isinstance(line, str) else line
        self.sock.sendall(data + b"\r\n")

    def line(self, timeout: float = 10) -> str:
        self.sock.settimeout(timeout)
        while b"\n" not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.decode()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def start_server():
    """``start_server(world=None, **make_server_kwargs)``: a running ServerThread, stopped
    after the test."""
    running = []

    def start(world=None, host="127.0.0.1", **kwargs):
        s = ServerThread(make_server(world or playground(), **kwargs), host=host).start()
        running.append(s)
        return s

    yield start
    for s in running:
        s.stop()


@pytest.fixture
def make_playground():
    """The function that builds the served test world (to rebuild it for a replay)."""
    return playground


FUZZ_LINE_LIMIT = 1024


@pytest.fixture(scope="module")
def paused_server():
    """A paused world (only commands could change its state hash) and a raw client."""
    with ServerThread(make_server(playground(), paused=True,
                                  limits=Limits(max_line=FUZZ_LINE_LIMIT))) as served:
        client = Telnet(served.port)
        yield served, client
        client.close()


@pytest.fixture
def telnet():
    """``telnet(port)``: a connected :class:`Telnet`, closed after the test."""
    clients = []

    def connect(port, **kwargs):
        clients.append(Telnet(port, **kwargs))
        return clients[-1]

    yield connect
    for c in clients:
        c.close()
