"""Jupyter kernels that talk over IPC sockets, not TCP ports.

Over TCP, the client picks five free ports by binding and releasing them, and the kernel
binds them a moment later: when several kernels start at once (the test suite's workers,
``make run`` beside a JupyterLab) another process can take a port in between, and the
kernel dies before it answers ("Kernel died before replying to kernel_info"). IPC sockets
are files named after the kernel's connection file, so two kernels can never collide,
and the kernel has no reason to warn that it "is running over TCP without encryption".
Windows has no IPC transport in ZeroMQ's Python build, so it keeps TCP there.
"""

from __future__ import annotations

import os
import uuid

from jupyter_client.manager import AsyncKernelManager, KernelManager
from jupyter_core.paths import jupyter_runtime_dir
from traitlets import default

TRANSPORT = "ipc" if os.name == "posix" else "tcp"


def _socket_prefix() -> str:
    """A path of its own for each kernel's sockets (jupyter_client's default, ``kernel-ipc`` in the
    working folder, would be shared by two kernels started there)."""
    folder = jupyter_runtime_dir()
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"kernel-{uuid.uuid4().hex[:12]}-ipc")


def _transport(manager: KernelManager) -> str:
    return TRANSPORT


def _ip(manager: KernelManager) -> str:
    return _socket_prefix() if manager.transport == "ipc" else "127.0.0.1"


class IPCKernelManager(KernelManager):
    """For a client that talks to the kernel synchronously (nbval)."""

    _default_transport = default("transport")(_transport)
    _default_ip = default("ip")(_ip)


class AsyncIPCKernelManager(AsyncKernelManager):
    """The one nbclient and papermill start (they run kernels with asyncio)."""

    _default_transport = default("transport")(_transport)
    _default_ip = default("ip")(_ip)
