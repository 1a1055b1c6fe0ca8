"""Choose and combine views for the magic's options (a view never calls back into the magic)."""
from __future__ import annotations

import functools
import importlib
from dataclasses import replace

from jaxprlens.present.escape import html
from jaxprlens.present.front import output
from jaxprlens.views.options import Options

__all__ = ["Options", "Stack", "Outputs", "Cell", "build_view"]


class Stack:
    """Several views one above the other (``--table --graph``), as one displayable object."""

    def __init__(self, parts: list):
        self.parts = parts

    def __iter__(self):
        return iter(self.parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from jaxprlens.views.table.live import live_bundle      # a table's rows past those stored, from a live kernel
        text, body, needs = self._parts()
        return live_bundle({"text/plain": text, "text/html": output(body, needs)}, self.parts, body)

    def _parts(self) -> tuple[str, str, frozenset]:
        """Every part's text, every part's HTML, and the front end they need (carried once, after them)."""
        htmls, texts, needs = [], [], set()
        for part in self.parts:
            if hasattr(part, "body") and hasattr(part, "needs"):
                texts.append(part.text() if hasattr(part, "text") else repr(part))
                htmls.append(part.body())
                needs.update(part.needs)
                continue
            bundle = part._repr_mimebundle_()
            if isinstance(bundle, tuple):
                bundle = bundle[0]
            texts.append(bundle.get("text/plain", ""))
            if "text/html" in bundle:
                htmls.append(bundle["text/html"])
            elif "image/svg+xml" in bundle:
                htmls.append(f'<div class="jaxprlens jl-svg">{bundle["image/svg+xml"]}</div>')
            else:
                htmls.append(f"<pre>{html(bundle.get('text/plain', ''))}</pre>")
        return "\n\n".join(texts), "\n".join(htmls), frozenset(needs)

    def _bundle(self) -> dict:
        """The stored form: every part's text and HTML, the front end once."""
        text, body, needs = self._parts()
        return {"text/plain": text, "text/html": output(body, needs)}

    def __repr__(self) -> str:
        return self._bundle()["text/plain"]


class Outputs(Stack):
    """Several outputs, one after another, for parts that display themselves (the debugger: its replay, then its
    live widget): the parts between those are stacked in one output (``_ipython_display_``, called by IPython's
    display hook when the magic returns this)."""

    def _ipython_display_(self):
        from IPython.display import display  # noqa: TID251 - IPython's display protocol, called by IPython
        stacked: list = []
        for part in self.parts + [None]:
            if part is None or hasattr(part, "_ipython_display_"):
                if stacked:
                    display(stacked[0] if len(stacked) == 1 else Stack(stacked))
                stacked = []
                if part is not None:
                    display(part)
            else:
                stacked.append(part)


class Cell:
    """One cell's output being made: the program, the options, and what several of its parts share, made once
    (the profile: a table of its own and the graph's colours; the fusion map: a view of its own and the graph's
    outlines; the sharding map: a view of its own and the graph's marks).  A view option's ``shows`` function
    makes its part from this."""

    def __init__(self, program, opts: Options):
        self.program, self.opts = program, opts

    def compile_once(self):
        """With ``--sharding`` beside another part that compiles (``--run``, ``--profile``, ``--fusion``,
        ``--memory``), the one compile is made first as the sharding map needs it (with a dump of XLA's
        partitioner pass; the executable is the same): the others reuse it.  A compile that fails here is left to
        the parts, each of which says it its own way."""
        o = self.opts
        if not (o.sharding and (o.run or o.profile or o.fusion or o.memory)):
            return
        from jaxprlens.engine.compiled import scoped
        try:
            scoped(self.program, o.device, partitioning=True)
        except Exception:  # noqa: BLE001 - the parts compile again and say why
            pass

    @functools.cached_property
    def measured(self):
        """``--profile``: every top-level equation timed (``views.compiled.run.profile``)."""
        from jaxprlens.views.compiled.run import profile
        o = self.opts
        return profile(self.program, device=o.device, repeat=o.repeat, lang=o.lang, budget=o.budget)

    @functools.cached_property
    def fused(self):
        """``--fusion``: which equations became which compiled kernel (each timed with ``--profile``)."""
        from jaxprlens.views.compiled.fusion import fusion_view
        o = self.opts
        return fusion_view(self.program, device=o.device, lang=o.lang, profile=o.profile, repeat=o.repeat,
                           budget=o.budget)


    @functools.cached_property
    def sharded(self):
        """``--sharding``: where the data lives on the mesh and which equation made each collective."""
        from jaxprlens.views.compiled.sharding import sharding_view
        return sharding_view(self.program, device=self.opts.device, lang=self.opts.lang)


def _maker(path: str):
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def build_view(program, opts: Options, transformed=None):
    """The view object for ``opts``: each part the options show (``Options.parts``, made by the function each view
    option names), one above the other; ``transformed``: the transformed program when already traced
    (``--batched`` traces it with the call)."""
    if opts.transform:
        from jaxprlens.engine.transform import describe, transform
        options = opts.transform_options
        if transformed is None:
            transformed = transform(program, opts.transform, **options)
        if not opts.compare:
            return build_view(transformed, replace(opts, transform=None))
        from jaxprlens.views.compiled.compare import Compare
        view = Compare(program, transformed, describe(opts.transform, program, options), lang=opts.lang)
        if opts.lower or opts.compiled:
            from jaxprlens.views.compiled.lower import lowering_view
            return Stack([view, lowering_view(transformed, compiled=opts.compiled, lang=opts.lang)])
        return view
    cell = Cell(program, opts)
    cell.compile_once()
    parts = [part for part in (_maker(path)(cell) for path in opts.parts()) if part is not None]
    if len(parts) == 1:
        return parts[0]
    return (Outputs if any(hasattr(part, "_ipython_display_") for part in parts) else Stack)(parts)
