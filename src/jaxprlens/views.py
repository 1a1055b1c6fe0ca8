"""Choose and combine views for the magic's options (a view never calls back into the magic)."""
from __future__ import annotations

from .escape import html


class Stack:
    """Several views one above the other (``--table --graph``), as one displayable object."""

    def __init__(self, parts: list):
        self.parts = parts

    def __iter__(self):
        return iter(self.parts)

    def _repr_mimebundle_(self, include=None, exclude=None):
        htmls, texts = [], []
        for part in self.parts:
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
        return {"text/plain": "\n\n".join(texts), "text/html": "\n".join(htmls)}

    def __repr__(self) -> str:
        return self._repr_mimebundle_()["text/plain"]


def build_view(program, args):
    """The view object for parsed magic options ``args`` (see ``magic.JaxprMagics.jaxpr``)."""
    if getattr(args, "transform", None):
        from .transform import transform_view
        return transform_view(program, args)
    parts = []
    if args.text:
        parts.append(program.text_view())
    if args.table or args.cost or not (args.text or args.graph or args.debug or args.run or args.profile
                                       or getattr(args, "lower", False) or getattr(args, "compiled", False)):
        parts.append(program.table(lang=args.lang, cost=args.cost))
    if args.graph:
        parts.append(program.graph(depth=args.depth, max_nodes=args.max_nodes, path=args.path))
    if getattr(args, "lower", False) or getattr(args, "compiled", False):
        from .lowering import lowering_view
        parts.append(lowering_view(program, compiled=args.compiled))
    if args.run:
        parts.append(program.run(device=args.device, repeat=args.repeat))
    if args.profile:
        from .runner import profile
        parts.append(profile(program, device=args.device, repeat=args.repeat))
    if args.debug:
        debugger = program.debugger(device=args.device, lang=args.lang)
        if parts:
            from IPython.display import display
            display(Stack(parts) if len(parts) > 1 else parts[0])
        return debugger
    return parts[0] if len(parts) == 1 else Stack(parts)
