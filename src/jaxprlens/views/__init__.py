"""Choose and combine views for the magic's options (a view never calls back into the magic)."""
from __future__ import annotations

from dataclasses import dataclass, fields, replace

from jaxprlens.model.errors import KeyedError
from jaxprlens.present.escape import html
from jaxprlens.present.front import output
from jaxprlens.present.i18n import resolve
from jaxprlens.present.shares import Metric, Shares


class Stack:
    """Several views one above the other (``--table --graph``), as one displayable object."""

    def __init__(self, parts: list):
        self.parts = parts

    def __iter__(self):
        return iter(self.parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from jaxprlens.views.live import live_bundle      # a table's rows past those stored, from a live kernel
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


@dataclass(frozen=True)
class Options:
    """What the reader asked for, as plain typed values, checked: the magic's argparse namespace stops at
    ``from_namespace``; the views and engines read these.  ``Options()`` is the table, in the default language."""
    text: bool = False
    table: bool = False
    graph: bool = False
    debug: bool = False
    run: bool = False
    profile: bool = False
    cost: Metric | None = None         # ``--cost``: "flops"; ``--cost bytes``: "bytes"
    lower: bool = False
    compiled: bool = False
    lang: str | None = None            # None: the kernel-wide default (``%jaxpr_config --lang``)
    devices: bool = False              # ``--devices``: list the devices and stop
    device: str | None = None          # a device that exists here (``engine.devices.resolve_device``)
    repeat: int = 20
    budget: float = 10.0               # seconds --run / --profile may spend timing (engine.runner.BUDGET)
    depth: int | None = None
    max_nodes: int | None = None
    path: str | None = None
    static_argnums: tuple[int, ...] = ()    # positions of static arguments, as the call is written
    outer: bool = False                # a call that is one jit equation: show that equation, not its body
    transform: str | None = None       # one of ``engine.transform.TRANSFORMS``
    argnums: tuple[int, ...] | None = None    # ``(0, 1)`` for ``--argnums 0,1``
    in_axes: tuple[int | None, ...] | None = None    # ``(0, None)`` for ``--in-axes 0,None``; maps one at least
    batched: bool = False
    compare: bool = False
    fusion: bool = False               # ``--fusion``: which equations became which compiled kernel
    memory: bool = False               # ``--memory``: bytes live along the program

    @classmethod
    def from_namespace(cls, ns) -> "Options":
        """The options of a namespace (the magic's argparse one), parsed and checked all at once, before
        anything runs: a bad one is a ``ValueError`` (``KeyedError``, worded by the catalogue) saying which.
        Checks that need the call (an ``--argnums`` past its arguments) are the engines', when it is traced."""
        from jaxprlens.engine.transform import check_options, int_list, parse_axes
        given = {f.name: getattr(ns, f.name) for f in fields(cls) if getattr(ns, f.name, None) is not None}
        given["lang"] = resolve(given.get("lang"))       # this cell's language, else the kernel's
        for key, flag in (("static_argnums", "--static-argnums"), ("argnums", "--argnums")):
            if isinstance(given.get(key), str):
                given[key] = int_list(given[key], flag)
        if isinstance(given.get("in_axes"), str):
            given["in_axes"] = parse_axes(given["in_axes"])
        opts = cls(**given)
        if not opts.transform:            # options that would otherwise be ignored in silence
            flags = [flag for flag, value in (("--compare", opts.compare), ("--argnums", opts.argnums),
                                              ("--in-axes", opts.in_axes)) if value]
            if flags:
                raise KeyedError("needs_transform", given=" ".join(flags), n=len(flags))
        if opts.batched and opts.transform != "vmap":
            raise KeyedError("batched_needs_vmap")
        if opts.transform:
            check_options(opts.transform, opts.transform_options)
        if opts.repeat < 1:
            raise KeyedError("run_repeat", repeat=opts.repeat)
        if min(opts.depth or 0, opts.max_nodes or 0) < 0:
            from jaxprlens.views.draw import DEPTH, MAX_NODES     # what the graph draws with when not given
            raise KeyedError("graph_negative", depth=DEPTH if opts.depth is None else opts.depth,
                             max_nodes=MAX_NODES if opts.max_nodes is None else opts.max_nodes)
        if opts.device is not None:
            from jaxprlens.engine.devices import resolve_device
            resolve_device(opts.device)
        return opts

    @property
    def transform_options(self) -> dict:
        """What ``engine.transform.transform`` takes of these (given ones only): one axis or argument
        number as a single value, as ``jax.vmap`` and ``jax.grad`` take it."""
        def single(x):
            return x[0] if isinstance(x, tuple) and len(x) == 1 else x
        options = {"argnums": single(self.argnums), "in_axes": single(self.in_axes), "batched": self.batched or None}
        return {k: v for k, v in options.items() if v is not None}


def build_view(program, opts: Options, transformed=None):
    """The view object for ``opts``; ``transformed``: the transformed program when already traced
    (``--batched`` traces it with the call)."""
    from jaxprlens.views.graph import Graph
    from jaxprlens.views.live import ServedTable      # a Table; live, it serves the rows not stored
    from jaxprlens.views.text import TextView
    from jaxprlens.views.fusion import fusion_view
    lang = resolve(opts.lang)          # one language for every view of this cell
    if opts.transform:
        from jaxprlens.engine.transform import describe, transform
        options = opts.transform_options
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
        parts.append(TextView(program))
    if opts.table or (opts.cost and not opts.graph) or not (    # --graph --cost: the cost is on the graph
            opts.text or opts.graph or opts.debug or opts.run or opts.profile or opts.lower or opts.compiled
            or opts.fusion or opts.memory):
        parts.append(ServedTable(program, lang=lang, cost=opts.cost))
    measured = None
    if opts.profile and (opts.graph or not opts.fusion):    # --profile --fusion: each kernel timed (the profiler)
        from jaxprlens.views.run import profile
        measured = profile(program, device=opts.device, repeat=opts.repeat, lang=lang, budget=opts.budget)
    fusion = dict(device=opts.device, lang=lang, profile=opts.profile, repeat=opts.repeat, budget=opts.budget)
    if opts.graph:                     # --graph --profile: coloured by measured time (--cost: by the estimate)
        shares = Shares.measured(program, measured) if measured is not None and not opts.cost else None
        fused = fusion_view(program, **fusion) if opts.fusion else None   # outlines by kernel
        parts.append(Graph(program, depth=opts.depth, max_nodes=opts.max_nodes, path=opts.path, lang=lang,
                           cost=opts.cost, shares=shares, fusion=fused))
    if opts.lower or opts.compiled:
        from jaxprlens.views.lower import lowering_view
        parts.append(lowering_view(program, compiled=opts.compiled, lang=lang))
    if opts.fusion:                    # compiled once: the graph's outlines and this view share it
        parts.append(fused if opts.graph else fusion_view(program, **fusion))
    if opts.memory:
        from jaxprlens.views.memory import memory_view
        parts.append(memory_view(program, lang=lang))
    if opts.run:
        from jaxprlens.views.run import run
        parts.append(run(program, device=opts.device, repeat=opts.repeat, lang=lang, budget=opts.budget))
    if measured is not None:
        parts.append(measured)
    if opts.debug:
        from jaxprlens.views.debugger import Debugger
        debugger = Debugger(program, device=opts.device, lang=lang)
        if parts:
            from IPython.display import display
            display(Stack(parts) if len(parts) > 1 else parts[0])
        return debugger
    return parts[0] if len(parts) == 1 else Stack(parts)
