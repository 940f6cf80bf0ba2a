"""The phones' listening socket, apart from the service that uses it: the phones' server in a
process of its own (phones_process.py) binds its port with it and imports none of the box (its
menus, PIL, gpiozero: a tenth of that process's start, several seconds at a Pi Zero's pace)."""

from __future__ import annotations

import socket
from typing import Any


def bind(host: str, port: int) -> socket.socket:
    """A listening socket: ``host`` alone, or every address (IPv6 with IPv4 mapped)."""
    if host:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        address: tuple[Any, ...] = (host, port)
    else:
        try:
            sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            address = ("::", port)
        except OSError:  # no IPv6 on this box
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            address = ("0.0.0.0", port)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(32)
        sock.setblocking(False)
    except OSError:
        sock.close()
        raise
    return sock
