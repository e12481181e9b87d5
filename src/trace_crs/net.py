"""The loopback address our local servers listen on and a free port for them (the llama.cpp
workers of ``lm`` and the annotation tool of ``human``; a shared module, so neither layer imports
the other)."""

from __future__ import annotations

import socket

HOST = "127.0.0.1"


def free_port() -> int:
    """A TCP port on :data:`HOST` that is free right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])
