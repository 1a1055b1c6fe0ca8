"""The devices JAX can use here and how a reader names one: ``cpu``, ``gpu:1``, ``tpu:0``."""
from __future__ import annotations

import re
from dataclasses import dataclass

import jax

from jaxprlens.model.errors import KeyedError

_SPEC = re.compile(r"^\s*([a-zA-Z]+)\s*(?::\s*(\d+))?\s*$")
_PLATFORMS = ("cpu", "gpu", "tpu")
_ALIASES = {"cuda": "gpu", "rocm": "gpu"}


def _platform_devices(platform: str) -> list:
    try:
        return list(jax.local_devices(backend=platform))
    except RuntimeError:          # no such backend on this machine
        return []


def available_devices() -> list:
    """Every local device of every backend JAX can start here (default backend first)."""
    seen, out = set(), []
    for d in list(jax.local_devices()) + [d for p in _PLATFORMS for d in _platform_devices(p)]:
        if (d.platform, d.id) not in seen:
            seen.add((d.platform, d.id))
            out.append(d)
    return out


def default_device():
    """The device JAX uses when none is given (``jax.default_device`` / config, else the first)."""
    chosen = jax.config.jax_default_device
    if isinstance(chosen, str):
        return resolve_device(chosen)
    return chosen if chosen is not None else jax.local_devices()[0]


def device_name(d) -> str:
    """``cpu:0``, ``gpu:1``: the platform and the device's index among that platform's local devices."""
    platform = _ALIASES.get(d.platform, d.platform)
    same = list(_platform_devices(platform)) or [d]
    index = next((i for i, x in enumerate(same) if x == d), d.id)
    return f"{platform}:{index}"


def _listing() -> str:
    return ", ".join(f"{device_name(d)} ({d.device_kind})" for d in available_devices())


def resolve_device(spec: str | None):
    """``None`` -> JAX's default device; ``"cpu"``, ``"gpu"``, ``"gpu:1"``, ``"tpu:0"`` -> that device.

    Raises a ValueError (``KeyedError``: the catalogue words it) naming the devices that exist when ``spec`` is
    malformed or absent here.
    """
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        return default_device()
    if not isinstance(spec, str):
        if hasattr(spec, "platform") and hasattr(spec, "id"):     # already a jax Device
            return spec
        raise KeyedError("device_type", kind=type(spec).__name__)
    m = _SPEC.match(spec)
    if not m:
        raise KeyedError("device_unknown", spec=repr(spec), listing=_listing())
    platform = _ALIASES.get(m.group(1).lower(), m.group(1).lower())
    index = int(m.group(2)) if m.group(2) is not None else 0
    found = _platform_devices(platform)
    if not found:
        raise KeyedError("device_absent", platform=platform, spec=repr(spec), listing=_listing())
    if index >= len(found):
        raise KeyedError("device_index", spec=repr(spec), n=len(found), platform=platform, last=len(found) - 1,
                         listing=_listing())
    return found[index]


@dataclass(frozen=True)
class DeviceInfo:
    platform: str
    kind: str
    id: int
    name: str          # cpu:0

    @classmethod
    def of(cls, d) -> DeviceInfo:
        return cls(_ALIASES.get(d.platform, d.platform), d.device_kind, d.id, device_name(d))

    def __str__(self) -> str:
        return self.name
