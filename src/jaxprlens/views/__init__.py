"""Choose and combine views for the magic's options (a view never calls back into the magic)."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from jaxprlens.present.escape import html
from jaxprlens.present.front import assets
from jaxprlens.present.i18n import resolve


class Stack:
    """Several views one above the other (``--table --graph``), as one displayable object."""

    def __init__(self, parts: list):
        self.parts = parts

    def __iter__(self):
        return iter(self.parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from jaxprlens.views.live import live_bundle      # a table's rows past those stored, from a live kernel
        return live_bundle(self._bundle(), self.parts)

    def _bundle(self) -> dict:
        """The stored form: every part's text and HTML, the front end once."""
        htmls, texts, needs = [], [], set()
        for part in self.parts:
            if hasattr(part, "body") and hasattr(part, "needs"):   # the front end once, after every part
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
        if needs:
            htmls.append(assets(frozenset(needs)))
        return {"text/plain": "\n\n".join(texts), "text/html": "\n".join(htmls)}

    def __repr__(self) -> str:
        return self._bundle()["text/plain"]


@dataclass(frozen=True)
class Options:
    """What the reader asked to see, as plain typed values (the magic's argparse namespace stops at
    ``from_namespace``; views take these)."""
    text: bool = False
    table: bool = False
    graph: bool = False
    debug: bool = False
    run: bool = False
    profile: bool = False
    cost: str | None = None            # "flops" or "bytes" (``--cost``, ``--cost bytes``)
    lower: bool = False
    compiled: bool = False
    lang: str | None = None            # None: the kernel-wide default (``%jaxpr_config --lang``)
    device: str | None = None
    repeat: int = 20
    budget: float = 10.0               # seconds --run / --profile may spend timing (engine.runner.BUDGET)
    depth: int | None = None
    max_nodes: int | None = None
    path: str | None = None
    transform: str | None = None
    argnums: str | None = None
    in_axes: str | None = None
    batched: bool = False
    compare: bool = False
    fusion: bool = False               # ``--fusion``: which equations became which compiled kernel
    memory: bool = False               # ``--memory``: bytes live along the program

    @classmethod
    def from_namespace(cls, ns) -> "Options":
        return cls(**{f.name: getattr(ns, f.name) for f in fields(cls) if hasattr(ns, f.name)})

    @property
    def transform_options(self) -> dict:
        return {"argnums": self.argnums, "in_axes": self.in_axes, "batched": self.batched or None}


def build_view(program, opts: Options, transformed=None):
    """The view object for ``opts``; ``transformed``: the transformed program when already traced
    (``--batched`` traces it with the call)."""
    lang = resolve(opts.lang)          # one language for every view of this cell
    if opts.transform:
        from jaxprlens.engine.transform import check_options, describe, transform
        options = check_options(opts.transform, opts.transform_options)
        if transformed is None:
            transformed = transform(program, opts.transform, **options)
        if not opts.compare:
            return build_view(transformed, replace(opts, transform=None))
        from jaxprlens.views.compare import Compare
        view = Compare(program, transformed, describe(opts.transform, program, options), lang=lang)
        if opts.lower or opts.compiled:
            from jaxprlens.views.lower import lowering_view
            return Stack([view, lowering_view(transformed, compiled=opts.compiled, lang=lang)])
        return view
    parts = []
    if opts.text:
        parts.append(program.text_view())
    if opts.table or (opts.cost and not opts.graph) or not (    # --graph --cost: the cost is on the graph
            opts.text or opts.graph or opts.debug or opts.run or opts.profile or opts.lower or opts.compiled
            or opts.fusion or opts.memory):
        parts.append(program.table(lang=lang, cost=opts.cost))
    measured = None
    if opts.profile:
        from jaxprlens.views.run import profile
        measured = profile(program, device=opts.device, repeat=opts.repeat, lang=lang, budget=opts.budget)
    if opts.graph:                     # --graph --profile: coloured by measured time (--cost: by the estimate)
        from jaxprlens.views.draw import Shares
        shares = Shares.measured(program, measured) if measured is not None and not opts.cost else None
        fused = program.fusion(device=opts.device, lang=lang) if opts.fusion else None   # outlines by kernel
        parts.append(program.graph(depth=opts.depth, max_nodes=opts.max_nodes, path=opts.path, lang=lang,
                                   cost=opts.cost, shares=shares, fusion=fused))
    if opts.lower or opts.compiled:
        from jaxprlens.views.lower import lowering_view
        parts.append(lowering_view(program, compiled=opts.compiled, lang=lang))
    if opts.fusion:                    # compiled once: the graph's outlines and this view share it
        parts.append(fused if opts.graph else program.fusion(device=opts.device, lang=lang))
    if opts.memory:
        parts.append(program.memory(lang=lang))
    if opts.run:
        parts.append(program.run(device=opts.device, repeat=opts.repeat, lang=lang, budget=opts.budget))
    if measured is not None:
        parts.append(measured)
    if opts.debug:
        debugger = program.debugger(device=opts.device, lang=lang)
        if parts:
            from IPython.display import display
            display(Stack(parts) if len(parts) > 1 else parts[0])
        return debugger
    return parts[0] if len(parts) == 1 else Stack(parts)
