"""A comm as a kernel's, for widgets made outside one: the ``comm`` package's ``create_comm`` is meant to be
replaced by whoever carries the messages (ipykernel does); here a ``FakeComm`` keeps them.  Each widget made
while it is installed talks through its own: ``widget.comm.sent`` (every message, as the JSON the kernel would
write), ``widget.comm.custom`` (the ``content`` of the ``widget.send(...)`` ones) and ``widget.comm.buffers``."""
from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

import comm
from comm import DummyComm


class FakeComm(DummyComm):
    """Records what the widget publishes on its comm; opening and closing are kept as a DummyComm keeps them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sent: list[dict] = []            # every comm_msg's data (state updates and custom messages)
        self.custom: list[dict] = []          # the content of each custom message, in order
        self.buffers: list[list] = []         # the binary buffers of each message in ``sent``
        super().__init__(*args, **kwargs)

    def publish_msg(self, msg_type: str, data: dict | None = None, metadata: dict | None = None,
                    buffers: list | None = None, **keys: Any) -> None:
        if msg_type != "comm_msg":
            return
        msg = json.loads(json.dumps(data))
        self.sent.append(msg)
        self.buffers.append(list(buffers or []))
        if msg.get("method") == "custom":
            self.custom.append(msg["content"])


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """Widgets made inside talk through a ``FakeComm`` (for scripts; tests use the ``fake_comm`` fixture)."""
    before = comm.create_comm
    comm.create_comm = FakeComm
    try:
        yield
    finally:
        comm.create_comm = before
