"""``jaxprlens.show``: what ``%%jaxpr`` shows, from Python, for front ends without IPython's magics (marimo, a
script, a docs page).  The magic's options are keywords here, read and checked by the same ``Options``."""
from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from jaxprlens.model import trace
from jaxprlens.model.errors import KeyedError
from jaxprlens.views import build_view
from jaxprlens.views.options import SPEC, Options

# what the magic does before any cell runs (list the devices, print its help) has no place here
_NOT_HERE = ("devices", "help")


def show(fn: Callable[..., Any], *args: Any, kwargs: dict[str, Any] | None = None, **options: Any) -> Any:
    """The view ``%%jaxpr`` shows for the call ``fn(*args, **kwargs)``, with its options as keywords::

        jaxprlens.show(func1, x, y)                          # %%jaxpr           (the annotated table)
        jaxprlens.show(func1, x, y, graph=True, lang="zh")   # %%jaxpr --graph --lang zh
        jaxprlens.show(step, state, batch, debug=True)       # %%jaxpr --debug
        jaxprlens.show(f, x, n, static_argnums=(1,), run=True, repeat=5)
        jaxprlens.show(f, x, transform="grad", compare=True)

    A keyword is its option's name with ``_`` for ``-`` (``max_nodes=12`` is ``--max-nodes 12``); a value is
    what the option takes, typed (``depth=1``, ``cost="bytes"``, ``argnums=(0, 1)``) or written as on the magic's
    line (``argnums="0,1"``).  Options are checked as the magic checks them, before anything is traced."""
    unknown = [k for k in options if k not in SPEC or k in _NOT_HERE]
    if unknown:
        raise KeyedError("show_unknown", given=", ".join(sorted(unknown)),
                         names=", ".join(n for n in SPEC if n not in _NOT_HERE))
    opts = Options.from_namespace(SimpleNamespace(**options))
    transformed = None
    if opts.transform == "vmap" and opts.batched:
        from jaxprlens.engine.transform import batched_call
        program, transformed = batched_call(fn, args, kwargs or {}, opts.transform_options.get("in_axes"),
                                            opts.static_argnums)
    else:
        program = trace(fn, *args, static_argnums=opts.static_argnums, see_through=not opts.outer,
                        **(kwargs or {}))
    return build_view(program, opts, transformed)
