"""Words for the data the model and the engines return: a call group's label and summary, a cost, why the
stepper stopped, a device.  The model and engines hold data only; every view says them through here."""
from __future__ import annotations

from jaxprlens.engine.cost import Cost
from jaxprlens.present.i18n import si, sub_label, t


# ---------------------------------------------------------------- call groups (model.calls.Group)

def group_label(group, lang: str | None = None, phases: bool = True) -> str:
    """``block (call 3 of 6, backward)`` / ``block（第 3 次调用，共 6 次，反向）``."""
    bits = [t("call_n_of", lang, i=group.call, n=group.calls)] if group.calls > 1 else []
    if phases and group.phase and group.tree is not None and len(group.tree.phases) > 1:
        bits.append(t("phase_" + group.phase, lang))
    if getattr(group, "kind", "") == "update":
        bits.append(t("phase_update", lang))
    name = getattr(group, "name", "") or group.function
    return t("paren_after", lang, text=name, x=t("sep", lang).join(bits)) if bits else name


def group_summary(group, lang: str | None = None, limit: int = 4) -> str:
    """The functions a group calls, ``layer_norm ×2, attention, mlp``, in first-call order."""
    counts: dict = {}
    kids = group.groups
    while len(kids) == 1 and not kids[0].own and kids[0].groups:     # through wrappers (a library's
        kids = kids[0].groups                                          # grad_wrapper) to what they call
    for g in kids:
        name = getattr(g, "name", "") or g.function
        counts[name] = counts.get(name, 0) + 1
    items = [f"{k} ×{n}" if n > 1 else k for k, n in counts.items()]
    return t("list_sep", lang).join(items[:limit] + (["…"] if len(items) > limit else []))


# ---------------------------------------------------------------- costs (engine.cost.Cost)

def _base_cost_text(c: Cost, lang: str | None) -> str:
    bits = [si(c.flops, "FLOP"), si(c.bytes, "B")]
    if c.comm_bytes:
        bits.append(t("between_devices", lang, bytes=si(c.comm_bytes, "B")))
    text = t("sep", lang).join(bits)
    return text if c.bound == "=" else f"{c.bound} {text}"


def cost_text(c: Cost, lang: str | None = None) -> str:
    """``16 × (3 FLOP, 52 B) = 48 FLOP, 832 B`` / ``16 ×（3 FLOP，52 B）= 48 FLOP，832 B``."""
    if c.per is None:
        return _base_cost_text(c, lang)
    per = _base_cost_text(c.per, lang)
    if c.times is None:
        return t("per_iteration", lang, per=per)
    unit = t(f"unit_{c.unit}", lang) if c.unit else ""
    return t("repeated", lang, times=c.times, unit=unit, per=per, total=_base_cost_text(c, lang))


def percent(x: float) -> str:
    """``14%``, ``3.2%``, ``<0.1%``, ``0%``: a share as a reader compares them."""
    p = 100.0 * x
    if p <= 0:
        return "0%"
    if p < 0.1:
        return "<0.1%"
    return f"{p:.1f}%" if p < 9.95 else f"{p:.0f}%"


def fmt_time(seconds: float) -> str:
    """Three significant digits: ``850 ns``, ``45.6 µs``, ``1.23 ms``, ``2.50 s``."""
    for name, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            unit, v = name, seconds / scale
            break
    else:
        unit, v = "ns", seconds / 1e-9
    digits = 2 if v < 10 else 1 if v < 100 else 0
    return f"{v:.{digits}f} {unit}"


def share_bar(x: float, width: int = 8) -> str:
    """A share as a small bar of ``width`` cells, in eighths: ``███▍░░░░`` for 43%; text, so it survives
    stripped scripts and styles and reads in the plain-text table too."""
    n = max(0, min(width * 8, round(x * width * 8)))
    full, part = divmod(n, 8)
    return ("█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")).ljust(width, "░")


def intensity_text(c: Cost, lang: str | None = None) -> str:
    i = c.intensity
    word = t("intensity", lang)
    return f"{word} {t('n/a', lang)}" if i is None else t("intensity_is", lang, word=word, value=f"{i:.2f}")


def total_text(c: Cost, lang: str | None = None, word: bool = True) -> str:
    """``total 2.0 kFLOP, 96 B; intensity 20.83 FLOP/B`` (``word=False`` leaves out ``total``)."""
    body = f"{cost_text(c, lang)}{t('semi', lang)}{intensity_text(c, lang)}"
    return f"{t('total', lang)} {body}" if word else body


# ---------------------------------------------------------------- the stepper's stop, a device

def stop_text(stop, lang: str | None = None) -> str | None:
    """Why a stepper's last move stopped (``engine.stepper.Stop``), in words, or None:
    ``breakpoint at eqn 2/body/1 (mul)`` / ``在方程 2/body/1（mul）处遇到断点``."""
    if stop is None:
        return None
    return t(f"stop_{stop.kind}", lang, id=stop.eqn.id, prim=stop.eqn.primitive, cond=stop.condition)


def frame_label(eqn, sub, loop, lang: str | None = None) -> str:
    """A frame the stepper entered (``Stepper.where``): ``while[eqn 2] › body › iteration 3`` /
    ``while[方程 2] › 循环体 › 第 3 次迭代``; a reversed scan's iteration names the slice of xs it reads."""
    text = f"{t('frame_eqn', lang, prim=eqn.primitive, i=eqn.index)} › {sub_label(sub, lang)}"
    if loop is not None:
        text += " › " + t("iteration_n", lang, n=loop.iteration)
        if getattr(loop, "reverse", False):
            text += f" (xs[{loop.length - 1 - loop.iteration}])"
    return text


def crumbs(where: tuple, lang: str | None = None) -> list:
    """``Stepper.where`` (or an ``Edit.where``) as labels: ``['while[eqn 2] › body › iteration 3', 'eqn 1']``;
    ``['done']`` / ``['已完成']`` at the end."""
    if not where:
        return [t("done", lang)]
    return [frame_label(*f, lang) for f in where[:-1]] + [t("at_eqn", lang, i=where[-1])]


def path_text(stepper, lang: str | None = None) -> str:
    """Where a stepper is (``Stepper.where``, or a ``where`` tuple itself): ``while[eqn 2] › body ›
    iteration 3 › eqn 1`` / ``while[方程 2] › 循环体 › 第 3 次迭代 › 方程 1``; ``done`` / ``已完成`` at the end."""
    where = stepper if isinstance(stepper, tuple) else stepper.where
    return " › ".join(crumbs(where, lang))


def jit_diff_text(diff, lang: str | None = None) -> str | None:
    """``Stepper.compare_with_jit``'s ``JitDiff`` in words, or None (alike): ``out[0]: 1 of 3 elements differ
    from jax.jit's, by up to 0.5: the stepper runs each equation eagerly, ...``."""
    if diff is None:
        return None
    if diff.kind == "failed":
        return t("jitdiff_failed", lang, error=diff.error, detail=diff.detail)
    if diff.kind == "host":
        return t("jitdiff_host", lang, names=diff.detail)
    if diff.kind == "count":
        return t("jitdiff_count", lang, want=diff.want, got=diff.got)
    if diff.kind == "type":
        what = t("jitdiff_type", lang, path=diff.path, got=diff.got, want=diff.want)
    else:
        by = t("jitdiff_by", lang, gap=f"{diff.gap:.3g}") if diff.gap is not None else ""
        what = (t("jitdiff_elements", lang, path=diff.path, n=diff.differing, size=diff.size, by=by) if diff.size
                else t("jitdiff_value", lang, path=diff.path, by=by))
    more = t("jitdiff_more", lang, n=diff.more) if diff.more else ""
    return t("jitdiff", lang, what=what, more=more)


def over_text(over, lang: str | None = None) -> str | None:
    """Why a step into ran an equation whole (``Stepper.note``, an ``engine.frames.Over``), or None:
    ``shard_map bodies run as one step: each device runs the body on its own block, ...``."""
    if over is None:
        return None
    eqn = over.eqn
    if over.kind == "mapped":
        key = "over_devices" if eqn.primitive == "xla_pmap" else "over_shards"
        return t(key, lang, prim=eqn.primitive, id=eqn.id)
    if over.kind == "kernel":
        grid = (eqn.roles.detail.get("grid") if eqn.roles else None) or ()
        points = 1
        for g in grid:
            points = points * g if isinstance(g, int) else None
            if points is None:
                break
        more = t("over_kernel_grid", lang, n=points) if grid and points is not None else ""
        return t("over_kernel", lang, prim=eqn.primitive, id=eqn.id, grid=more)
    if over.kind == "refs":
        return t("over_refs", lang, prim=eqn.primitive, id=eqn.id)
    what = t("and", lang).join(sub_label(s, lang) for s in eqn.subs)
    return t("over_combiner", lang, prim=eqn.primitive, what=what, id=eqn.id)


def device_text(info, lang: str | None = None) -> str:
    """``cpu:0 (platform cpu, kind cpu, id 0)`` for an ``engine.devices.DeviceInfo``."""
    return t("device_info", lang, name=info.name, platform=info.platform, kind=info.kind, id=info.id)


def program_title(program, lang: str | None = None) -> str:
    """A transformed program's title, what was transformed and how its inputs were made: ``jvp(f): inputs are
    the primals, then tangents of ones`` / ``jvp(f)：输入依次为原值和全 1 的切向量``; ``""`` for a program as
    traced."""
    if not program.title:
        return ""
    notes = [t(key, lang, **fields) for key, fields in program.title_note]
    return program.title + (t("colon", lang) + t("semi", lang).join(notes) if notes else "")


def seen_through_note(program, lang: str | None = None) -> str:
    """One line on a program that is the body of the ``jit`` its call traced to (``model.seen_through``);
    ``""`` for any other program."""
    outer = getattr(program, "outer", None)
    if outer is None:
        return ""
    name = outer.eqns[0].params.get("name") or getattr(outer.fn, "__name__", "") or "jit"
    return t("seen_through", lang, name=name)
