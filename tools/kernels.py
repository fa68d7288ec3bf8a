"""Jupyter kernels over IPC sockets instead of TCP ports (jupyter_client's ``transport`` setting), on POSIX.

Over TCP the client picks five free ports and the kernel binds them a moment later: kernels started at once can
take each other's ports, and one dies ("Kernel died before replying to kernel_info"). IPC sockets are files, one
set per kernel (jupyter_client's default, ``kernel-ipc`` in the working folder, would be shared). Windows: TCP.
"""

import os
import uuid

from jupyter_client.manager import AsyncKernelManager, KernelManager
from jupyter_core.paths import jupyter_runtime_dir


class IPCKernelManager(KernelManager):
    """For a client that talks to the kernel synchronously (nbval)."""

    def _transport_default(self) -> str:  # traitlets' default for a trait, by its name (as @default("transport"))
        return "ipc" if os.name == "posix" else "tcp"

    def _ip_default(self) -> str:  # jupyter_client's own, overridden
        if self.transport != "ipc":
            return "127.0.0.1"
        os.makedirs(jupyter_runtime_dir(), exist_ok=True)
        return os.path.join(jupyter_runtime_dir(), f"kernel-{uuid.uuid4().hex[:12]}-ipc")


class AsyncIPCKernelManager(AsyncKernelManager, IPCKernelManager):
    """The one nbclient and papermill start (they run kernels with asyncio)."""
