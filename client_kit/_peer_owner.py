"""Who is at the other end of a loopback connection: the user id that owns the peer's socket.

Any local user may connect to the loopback listener. On Linux the kernel says who owns each
TCP socket of this network namespace (``/proc/net/tcp`` and ``tcp6``, readable by all, the
table ``ss -e`` and identd read): the peer's socket is the one whose local address is the
connection's remote one. Elsewhere there is no such table, and the owner is unknown (None).
"""

from __future__ import annotations

import ipaddress
import socket
import sys
from pathlib import Path

#: the kernel's tables of TCP sockets, by address family
_TABLES = {socket.AF_INET: Path("/proc/net/tcp"), socket.AF_INET6: Path("/proc/net/tcp6")}
#: column of the owner's user id in a row of those tables
_UID_COLUMN = 7


def socket_owner(connection: socket.socket) -> int | None:
    """The user id owning the peer's end of ``connection`` (None: this platform cannot tell)."""
    table = _TABLES.get(connection.family)
    if table is None:
        return None
    try:
        peer = connection.getpeername()
        local = connection.getsockname()
        text = table.read_text(encoding="ascii")
    except OSError:
        return None
    return owner_in_table(text, kernel_address(peer[0], peer[1]), kernel_address(*local[:2]))


def kernel_address(host: str, port: int) -> str:
    """``host:port`` as the kernel's tables write it: the address as 32-bit words in the
    machine's byte order, each in hexadecimal, then the port in hexadecimal."""
    packed = ipaddress.ip_address(host.split("%", 1)[0]).packed
    words = (packed[i : i + 4] for i in range(0, len(packed), 4))
    return "".join(f"{int.from_bytes(w, sys.byteorder):08X}" for w in words) + f":{port:04X}"


def owner_in_table(text: str, peer: str, local: str) -> int | None:
    """The uid of the row whose socket sits at ``peer`` and is connected to ``local``."""
    for line in text.splitlines()[1:]:
        columns = line.split()
        if len(columns) > _UID_COLUMN and columns[1] == peer and columns[2] == local:
            try:
                return int(columns[_UID_COLUMN])
            except ValueError:
                return None
    return None
