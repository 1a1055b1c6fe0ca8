"""A mistake in what the reader asked for, as data: the catalogue key that says it and the fields that fill it.

The model and the engines hold no words (ARCHITECTURE.md): they raise ``KeyedError(key, **fields)`` (or
``model.tracing.TraceError``, keyed alike), and the catalogue (``present/i18n.py``) words it: ``e.text(lang)`` in
the language of the view or cell that shows it, ``str(e)`` in the kernel's (``%jaxpr_config --lang``, else
``$JAXPRLENS_LANG``, else English: what a plain Python traceback shows the reader); ``views/render.RenderError``
is one too.
"""
from __future__ import annotations


class Words:
    """A phrase as data, for a field of a message: ``Words("arg_where", i=0, path="['w']")`` is worded in the
    message's language (``argument 0['w']``, ``实参 0['w']``); a list of them is said as a list."""

    def __init__(self, key: str, **fields):
        self.key, self.fields = key, fields

    def text(self, lang: str | None = "en") -> str:
        return _worded(self.key, lang, self.fields)

    def __repr__(self) -> str:
        return f"Words({self.key!r}, {self.fields!r})"


class Size:
    """A count with its unit, for a field of a message: ``Size(1_500_000, "B")`` is said ``1.5 MB``
    (``present.i18n.si``): the engines raise numbers, present says them."""

    def __init__(self, value: float, unit: str):
        self.value, self.unit = value, unit

    def __repr__(self) -> str:
        return f"Size({self.value!r}, {self.unit!r})"


def _worded(key: str, lang, fields: dict) -> str:
    words = Keyed.wording
    if words is None:          # the catalogue is not loaded (importing jaxprlens loads it)
        return f"{key}: {fields}"

    def field(v):
        if isinstance(v, Words):
            return v.text(lang)
        if isinstance(v, Size):
            return Keyed.sized(v.value, v.unit)
        if isinstance(v, list) and v and all(isinstance(x, Words) for x in v):
            return words("sep", lang).join(x.text(lang) for x in v)
        return v
    return words(key, lang, **{k: field(v) for k, v in fields.items()})


class Keyed:
    """An exception carrying ``key`` (the catalogue entry) and ``fields`` (what fills it; a field may be
    ``Words``, or a list of them, or a ``Size``)."""

    wording = None      # (key, lang, **fields) -> str; present.i18n registers its ``t`` here
    sized = None        # (value, unit) -> str; present.i18n registers its ``si`` here

    def __init__(self, key: str, **fields):
        self.key, self.fields = key, fields
        super().__init__(key, fields)

    def text(self, lang: str | None = "en") -> str:
        return _worded(self.key, lang, self.fields)

    def __str__(self) -> str:
        """The message in the kernel's language (a plain traceback's reader is the notebook's), else English."""
        try:
            return self.text(None)
        except ValueError:          # the kernel's language cannot be read ($JAXPRLENS_LANG=fr): English
            return self.text("en")


class KeyedLookupError(Keyed, KeyError):
    """``KeyedLookupError("find_no_eqn", eqn="'9'")``: a name looked up and not found (a KeyError)."""


class KeyedTypeError(Keyed, TypeError):
    """A value of the wrong kind, said by the catalogue (a TypeError)."""


class KeyedError(Keyed, ValueError):
    """``KeyedError("device_unknown", spec="'gpu-1'", listing="cpu:0 (cpu)")``: bad input, said by the catalogue.
    A ValueError, so callers that catch bad input keep working."""


def said(e: BaseException, lang: str | None = "en") -> str:
    """An exception's message in ``lang`` when it carries a catalogue key (``text(lang)``), else ``str(e)``."""
    text = getattr(e, "text", None)
    return text(lang) if callable(text) else str(e)


def told(e: BaseException, lang: str | None = "en") -> str:
    """What a reader is shown of an exception caught on their behalf: ours (a catalogue key) its message in
    ``lang``, which says what to do; anyone else's (JAX's, Python's) ``Type: message`` as Python prints it."""
    if callable(getattr(e, "text", None)):
        return e.text(lang)
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
