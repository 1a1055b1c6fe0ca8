"""Kernel-wide settings of the views, as ``%jaxpr_config`` shows and sets them: each is what ``%jaxpr_config`` set,
else its environment variable, else its default, and ``settings()`` says which.

- ``lang``: the language of every view given no ``--lang`` (``en``, ``zh``; ``$JAXPRLENS_LANG``);
- ``graph_png``: whether a graph's output carries its picture as ``image/png`` too, for LaTeX and PDF exports
  (``on``, ``off``; ``$JAXPRLENS_GRAPH_PNG``, where ``1``/``0`` read as on/off): ``off`` keeps a notebook light.
"""
from __future__ import annotations

import os
from typing import NamedTuple

from jaxprlens.model.errors import KeyedError


class Setting(NamedTuple):
    env: str                 # the environment variable read when %jaxpr_config has not set it
    choices: tuple           # its values; the first is the default
    spellings: dict          # other ways the variable may write a value
    refused: str             # the catalogue key that says the variable holds none of them


SETTINGS = {
    "lang": Setting("JAXPRLENS_LANG", ("en", "zh"), {}, "lang_env"),
    "graph_png": Setting("JAXPRLENS_GRAPH_PNG", ("on", "off"), {"1": "on", "0": "off"}, "setting_env"),
}
_config: dict = {}           # name -> value, set by %jaxpr_config


def get(name: str) -> tuple:
    """``(value, where it comes from)``; where is ``config``, ``env`` or ``default``."""
    if name in _config:
        return _config[name], "config"
    setting = SETTINGS[name]
    env = os.environ.get(setting.env, "").strip()
    if env:
        value = setting.spellings.get(env, env)
        if value not in setting.choices:
            raise KeyedError(setting.refused, env=setting.env, value=repr(env), langs=str(list(setting.choices)),
                             choices=str(list(setting.choices)))
        return value, "env"
    return setting.choices[0], "default"


def put(name: str, value: str | None) -> None:
    """Set ``name`` for the kernel (``None``: forget it, the variable or the default again); ``value`` is checked
    by the caller (``i18n.check`` for a language)."""
    if value is None:
        _config.pop(name, None)
    elif value not in SETTINGS[name].choices:
        raise KeyedError("setting_unknown", name=repr(value), choices=str(list(SETTINGS[name].choices)))
    else:
        _config[name] = value


def settings() -> dict:
    """Every setting: ``{name: (value, where it comes from)}``."""
    return {name: get(name) for name in SETTINGS}
