"""A comm as a kernel's, for widgets made outside one: the ``comm`` package's ``create_comm`` is meant to be
replaced by whoever carries the messages (ipykernel does); here a ``FakeComm`` keeps them.  Each widget made
while it is installed talks through its own: ``widget.comm.sent`` (every message, as the JSON the kernel would
write), ``widget.comm.bytes`` (each one's size as that JSON, UTF-8: what tests and benchmarks count),
``widget.comm.custom`` (the ``content`` of the ``widget.send(...)`` ones) and ``widget.comm.buffers``;
``command`` delivers what a page's ``invoke`` sends (anywidget's command message) to a widget's channel."""
from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterator
from typing import Any

import comm
from comm import DummyComm

ASK, ANSWER = "anywidget-command", "anywidget-command-response"     # anywidget's command protocol
_asks = itertools.count(1)


class FakeComm(DummyComm):
    """Records what the widget publishes on its comm; opening and closing are kept as a DummyComm keeps them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.sent: list[dict] = []            # every comm_msg's data (state updates and custom messages)
        self.bytes: list[int] = []            # the size of each, as the kernel writes it (compact JSON, UTF-8)
        self.custom: list[dict] = []          # the content of each custom message, in order
        self.buffers: list[list] = []         # the binary buffers of each message in ``sent``
        super().__init__(*args, **kwargs)

    def publish_msg(self, msg_type: str, data: dict | None = None, metadata: dict | None = None,
                    buffers: list | None = None, **keys: Any) -> None:
        if msg_type != "comm_msg":
            return
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        msg = json.loads(text)
        self.sent.append(msg)
        self.bytes.append(len(text.encode()))
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


def command(widget: Any, name: str, msg: Any, buffers: list | None = None) -> list[dict]:
    """A page's ``invoke(name, msg)`` (anywidget's front end, or ``static/rpc.js`` where a front end has none): the
    custom message ``{"id", "kind": "anywidget-command", "name", "msg"}`` on ``widget``'s channel, as the kernel
    receives it.  Returns what the widget sent meanwhile, anywidget's reply (``{"id", "kind":
    "anywidget-command-response", "response"}``, the same id) last when the widget has the command."""
    n = len(widget.comm.custom)
    ask = {"id": f"ask-{next(_asks)}", "kind": ASK, "name": name, "msg": msg}
    widget.comm.handle_msg({"content": {"data": {"method": "custom", "content": ask}}, "buffers": list(buffers or [])})
    return widget.comm.custom[n:]


def reply(sent: list[dict]) -> Any:
    """The response of the command whose messages are ``sent`` (``command``'s result)."""
    last = sent[-1]
    assert last.get("kind") == ANSWER, last
    return last["response"]
