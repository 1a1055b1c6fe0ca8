"""The magics' options in the reader's language: ``--help`` (argparse's help, each option's words from the
catalogue's ``help.<magic>.<option>``) and argparse's complaints about an option, said again.

The magic (``magic.py``) owns the parsers (IPython's ``magic_arguments``); this module only words them, so it
reads a parser as argparse's ``format_help`` does and imports nothing of IPython.
"""
from __future__ import annotations

import copy
import difflib
import functools
import re

from jaxprlens.present.i18n import t, width


def option_help(key: str, **fields) -> str:
    """An option's English help as argparse takes it: ``help.<key>`` (filled in with ``fields``: its ``default``)
    with ``%`` doubled (argparse fills in ``%(default)s`` and the like; the catalogue holds the words as the reader
    reads them)."""
    return t(f"help.{key}", "en", **fields).replace("%", "%%")


def help_text(parser, lang: str) -> str:
    """What ``%%jaxpr --help`` prints in ``lang``: argparse's help, its usage line, the magic's description and
    its options, each option's help from the catalogue.  In English, exactly ``parser.format_help()`` (what
    ``%%jaxpr?`` shows: the description is the magic's docstring)."""
    magic = parser.prog
    cls = parser.formatter_class if lang == "en" else _wide(parser.formatter_class)
    formatter = cls(prog=magic)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    formatter.add_text(parser.description if lang == "en" else t(f"help.{magic}", lang))
    for group in parser._action_groups:
        formatter.start_section(t("help.options", lang) if group is parser._optionals else group.title)
        formatter.add_text(group.description)
        formatter.add_arguments([_worded(a, magic, lang) for a in group._group_actions])
        formatter.end_section()
    formatter.add_text(parser.epilog)
    text = formatter.format_help()
    if lang != "en":        # argparse ends a heading with its own ":" (Python's words): the reader's colon
        heading = t("help.options", lang)
        text = text.replace(f"\n{heading}:\n", f"\n{heading}{t('colon', lang).strip()}\n")
    return text


def _worded(action, magic: str, lang: str):
    """``action`` with its help in ``lang`` (a copy: the parser keeps its English), its default said where the
    words name it."""
    if lang == "en" or not action.help:
        return action
    worded = copy.copy(action)
    worded.help = t(f"help.{magic}.{action.dest}", lang, default=action.default).replace("%", "%%")
    return worded


@functools.cache
def _wide(cls):
    """argparse's formatter ``cls`` (IPython's), wrapping help by display width: a Chinese character takes two
    columns, no line starts with a closing mark (，。；：）) nor ends with an opening one (（「)."""
    return type(f"Wide{cls.__name__}", (cls,), {"_split_lines": lambda self, text, cols: wrap(text, cols)})


_CLOSING, _OPENING = "，。、；：）」！？", "（「"


def wrap(text: str, cols: int, first: int | None = None) -> list[str]:
    """``text`` (whitespace collapsed) in lines of at most ``cols`` display columns (``first`` for the first
    line, when given), broken at spaces or between Chinese characters; an ASCII word longer than a line stays
    whole."""
    tokens = re.findall(r" |[!-~]+|.", " ".join(text.split()))
    lines, line = [], []
    for tok in tokens:
        room = first if first is not None and not lines else cols
        if line and tok != " " and width("".join(line) + tok) > room:
            carry = [line.pop()] if tok in _CLOSING and len(line) > 1 and line[-1] != " " else []
            while len(line) > 1 and line[-1] in _OPENING:
                carry.insert(0, line.pop())
            lines.append("".join(line).rstrip())
            line = carry
        if line or tok != " ":
            line.append(tok)
    return lines + ["".join(line).rstrip()] if line else lines


# ---------------------------------------------------------------- argparse's complaints, said again

# argparse's complaints about one option (Python 3.11-3.13 wording) -> the catalogue key that says it again
_ARGPARSE = (("opt_choice", r"argument (?P<option>\S+): invalid choice: (?P<value>.*) "
                            r"\(choose from (?P<choices>.*)\)"),
             ("opt_int", r"argument (?P<option>\S+): invalid int value: (?P<value>.*)"),
             ("opt_float", r"argument (?P<option>\S+): invalid float value: (?P<value>.*)"),
             ("opt_needs_value", r"argument (?P<option>\S+): expected one argument"),
             ("opt_no_value", r"argument (?P<option>\S+): ignored explicit argument (?P<value>.*)"),
             ("opt_ambiguous", r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)"))


# a hyphen, and what an editor's autocorrect or a copied web page writes for one (em and en dash, minus, ...)
_DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"


def option_error(error: str, parser, lang: str, magic: str) -> str:
    """argparse's complaint ``error`` in ``lang``: the closest valid option to each one not known, then the
    valid ones and where their help is (``magic --help``)."""
    valid = sorted(a for action in parser._actions for a in action.option_strings)
    m = re.match(r"unrecognized arguments: (.*)", error)
    if m:
        lines = [t("opt_unrecognized", lang, opts=m.group(1))]
        names = {v.lstrip("-"): v for v in valid}         # compared without the dashes every option shares
        close = [names[c] for word in m.group(1).split() if word[:1] in _DASHES
                 for c in difflib.get_close_matches(word.split("=")[0].lstrip(_DASHES), names, n=1)]
        if close:
            lines.append(t("opt_did_you_mean", lang, close=" ".join(dict.fromkeys(close))))
    else:
        said = next((t(key, lang, **{k: t("list_sep", lang).join(v.split(", ")) for k, v in m.groupdict().items()})
                     for key, pattern in _ARGPARSE if (m := re.fullmatch(pattern, error))), None)
        lines = [said or t("opt_bad", lang, error=error)]
    return "\n".join(lines + [t("opt_valid", lang, options=" ".join(valid), magic=magic)])
