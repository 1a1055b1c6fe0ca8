"""Words shown to the reader, in English and Chinese (``--lang zh``, the seed article's audience): the
catalogue of every view (its parts, one module per view, in ``present/catalogue/``, merged here), the glossary
it keeps to, the kernel-wide default language, and ``t``, which says a key in a language.

Chinese text uses full-width punctuation (，：；（）「」) and one term per concept (``GLOSSARY``).
"""
from __future__ import annotations

import functools
import unicodedata

from jaxprlens.model.errors import Keyed, KeyedError
from jaxprlens.present.catalogue import (common, debugger, errors, exercise, graph, lower, magic, picture, run,
                                          sharding, table)
from jaxprlens.present import settings
from jaxprlens.present.catalogue.glossary import AVOID, GLOSSARY  # noqa: F401 - the course and tests read them

LANGS = ("en", "zh")
PARTS = (common, table, graph, lower, run, picture, debugger, magic, errors, exercise, sharding)


def merge(parts) -> dict:
    """The parts' ``WORDS`` as one catalogue ``{key: (en, zh[, en_one])}``; a key defined twice is an error."""
    words: dict = {}
    for part in parts:
        twice = sorted(set(words) & set(part.WORDS))
        if twice:
            raise ValueError(f"catalogue keys defined twice ({part.__name__}): {twice}")
        words.update(part.WORDS)
    return words


CATALOGUE = merge(PARTS)
# the catalogue by language, ``TEXT[lang][key]``, and the English singulars, ``ONE["en"][key]`` (used when n == 1)
TEXT = {lang: {key: entry[i] for key, entry in CATALOGUE.items()} for i, lang in enumerate(LANGS)}
ONE = {"en": {key: entry[2] for key, entry in CATALOGUE.items() if len(entry) > 2}}


# ---------------------------------------------------------------- the reader's language

ENV = settings.SETTINGS["lang"].env


def check(lang: str) -> str:
    """``lang`` if jaxprlens speaks it; else a ValueError naming the choices."""
    if lang not in LANGS:
        raise KeyedError("lang_unknown", name=repr(lang), langs=str(list(LANGS)))
    return lang


def default_lang() -> str:
    """The language of a view given no ``lang``: ``%jaxpr_config --lang`` (or ``set_default_lang``), else
    ``$JAXPRLENS_LANG``, else English.  Every view resolves its ``lang`` argument here (``resolve``): one path,
    whether the view is made by the magic or from Python."""
    return settings.get("lang")[0]


def set_default_lang(lang: str | None):
    """The kernel-wide language (``%jaxpr_config --lang zh``); ``None`` forgets it."""
    settings.put("lang", None if lang is None else check(lang))


def resolve(lang: str | None = None) -> str:
    """A view's ``lang`` option: checked, or the default when ``None``."""
    return default_lang() if lang is None else check(lang)


def t(key: str, lang: str | None = None, **fields) -> str:
    """The catalogue's text for ``key`` in ``lang``, filled in: ``t("n_eqns", "zh", n=14)`` is
    ``14 个方程``.  With no fields the template comes back as it is.  English singulars (``1 equation``)
    come from ``ONE`` when ``n == 1``."""
    table = TEXT.get(lang)
    if table is None:                    # None (the default) or a language to check
        lang = resolve(lang)
        table = TEXT[lang]
    if not fields:                       # most calls: a word, said as it is (a table asks ~200 a render)
        text = table.get(key)
        return TEXT["en"][key] if text is None else text
    if fields.get("n") == 1 and key in ONE.get(lang, {}):
        text = ONE[lang][key]
    elif key in table:
        text = table[key]
    else:
        text = TEXT["en"][key]           # a KeyError here is a missing catalogue entry: add it
    return text.format(**fields)


_PREFIXES = ["", "k", "M", "G", "T", "P", "E"]


def si(value: float, unit: str) -> str:
    """``96 B``, ``2.0 kFLOP``, ``1.5 MB``: decimal prefixes, one decimal once scaled (deterministic)."""
    value = float(value)
    if abs(value) < 1000:
        return f"{int(round(value))} {unit}"
    i = 0
    while abs(value) >= 1000 and i < len(_PREFIXES) - 1:
        value /= 1000.0
        i += 1
    return f"{value:.1f} {_PREFIXES[i]}{unit}"


Keyed.wording = t          # the model's and engines' errors (KeyedError, TraceError) are worded by this catalogue
Keyed.sized = si           # and their sizes (model.errors.Size) said as numbers with their unit


def a_noun(noun: str, lang: str | None = None) -> str:
    """A noun as a sentence names one thing: ``a str``, ``an int`` in English; the noun itself in Chinese."""
    if resolve(lang) != "en":
        return noun
    return f"a{'n' if noun[:1].lower() in 'aeiou' else ''} {noun}"


def role_word(key: str, n: int = 1, lang: str | None = None) -> str:
    """An operand role's word: ``carry`` / ``携带值``; ``cond const`` for one, ``cond consts`` for more."""
    if f"role.{key}" not in CATALOGUE:
        return key
    return t(f"role.{key}", lang, n=1 if n == 1 else 2)


def width(text: str) -> int:
    """Columns ``text`` takes in a monospace font (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def ljust(text: str, n: int) -> str:
    """``str.ljust`` by display width, so zh columns in ``text/plain`` line up."""
    return text + " " * max(0, n - width(text))


def sub_label(sub, lang: str | None = None) -> str:
    """A nested program's label in ``lang``: ``branch 1 (true)`` / ``分支 1（true）``, ``body`` / ``循环体``;
    combiners are translated; call labels (``jit inner``) name JAX things and stay as they are."""
    if resolve(lang) != "zh":
        return sub.label
    if sub.kind in ("combiner", "kernel"):
        return t(f"sub.{sub.key}", "zh") if f"sub.{sub.key}" in CATALOGUE else sub.label
    if sub.key.startswith("branch") and sub.key[6:].isdigit():
        meaning = sub.label.partition(" (")[2].rstrip(")")      # "false" / "true": Python values
        text = t("branch_n", "zh", i=sub.key[6:])
        return t("paren_after", "zh", text=text, x=meaning) if meaning else text
    if sub.kind in ("", "refs") and sub.key in ("cond", "body") and sub.label == sub.key:
        return t(f"sub_{sub.key}", "zh")
    return sub.label


def remembered(cache: dict, key: tuple, lang: str | None, make) -> str:
    """``make()``, kept in ``cache`` under ``key`` (at most 4,096 texts: a big table says a few lines thousands
    of times); never kept for ``lang=None``, the kernel's default, which may change."""
    if lang is None:
        return make()
    text = cache.get(key)
    if text is None:
        if len(cache) > 4096:
            cache.clear()
        text = cache[key] = make()
    return text


def where_text(src, lang: str | None = None) -> str:
    """Where a ``model.Source`` is: ``cell line 3`` / ``单元格 第 3 行``, ``seeds.py line 9``; in a notebook
    that numbers its cells (marimo's) ``cell 2 line 3`` / ``单元格 2 第 3 行``."""
    return _where_text(src.where, src.line, src.cell, resolve(lang))


@functools.lru_cache(maxsize=4096)      # a big table says a few lines thousands of times
def _where_text(where: str, line: int, cell: int | None, lang: str) -> str:
    if where == "cell":
        where = t("cell_n", lang, n=cell) if cell else t("cell", lang)
    return t("line_of", lang, where=where, line=line)


def count_word(n: int, word: str, lang: str | None = None) -> str:
    """``3 carry`` / ``3 个携带值`` (a space before a Latin word: ``2 个 xs``)."""
    if resolve(lang) != "zh":
        return f"{n} {word}"
    return f"{n} 个{' ' if word[:1].isascii() else ''}{word}"


def role_summary(roles, lang: str | None = None) -> str:
    """``0 cond consts, 2 body consts, 3 carry`` (en) / ``0 个条件常量、2 个循环体常量、3 个携带值`` (zh)."""
    lang = resolve(lang)
    # the detail's types in the key: ``reverse=False`` is said unlike ``reverse=0``
    key = (tuple(roles.groups), tuple((k, type(v), v) for k, v in roles.detail.items()), lang)
    try:
        return _role_summary(*key)
    except TypeError:          # a detail of an unhashable value (a list): said each time
        return _role_summary.__wrapped__(*key)


@functools.lru_cache(maxsize=4096)      # a program's jit equations say ``1 arg; calls f`` often
def _role_summary(groups: tuple, detail: tuple, lang: str) -> str:
    parts = [count_word(n, role_word(k, n, lang), lang) for k, n in groups]
    text = t("list_sep", lang).join(parts)
    extra = detail_text({k: v for k, _, v in detail}, lang)
    return t("semi", lang).join(x for x in (text, extra) if x)


def detail_text(detail: dict, lang: str | None = None) -> str:
    lang = resolve(lang)
    bits = []
    for key, value in detail.items():
        if key == "name":
            bits.append(t("calls", lang, name=value))
        elif key == "grid":
            bits.append(t("kernel_grid", lang, grid=value))
        elif key in ("in_blocks", "out_blocks"):
            if value:
                bits.append(t(key, lang, blocks=value))
        elif key == "across":
            bits.append(t("across_axes", lang, axes=value))
        elif key == "branches":
            bits.append(t("two_branches", lang) if value == 2 else
                        t("n_branches", lang, n=value, last=value - 1))
        else:
            bits.append(f"{key}={value}")
    return t("semi", lang).join(bits)
