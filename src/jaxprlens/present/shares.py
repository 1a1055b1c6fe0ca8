"""Each equation's share of a program's cost, read by the table (a bar beside each cost) and the graph and
its overview (a node's fill and its words): one computation, said in the reader's language.

``Metric`` is the one type of ``--cost`` from the magic's options to the views: ``"flops"`` or ``"bytes"``
(``None``: no cost shown).
"""
from __future__ import annotations

from typing import Literal, get_args

from jaxprlens.engine.cost import costs as estimate
from jaxprlens.present.i18n import si
from jaxprlens.model.program import Program, path_id
from jaxprlens.model.errors import KeyedError
from jaxprlens.present.i18n import t
from jaxprlens.present.words import fmt_time, percent

Metric = Literal["flops", "bytes"]
METRICS: tuple = get_args(Metric)


def cost_metric(cost) -> Metric | None:
    """What a view's ``cost=`` asks for, as a ``Metric``: ``"flops"``/``"bytes"`` as they are, ``True`` (the
    table's older spelling) ``"flops"``, ``None``/``False`` no cost; anything else a ValueError (``KeyedError``, in
    the reader's language)."""
    if cost is None or cost is False:
        return None
    if cost is True:
        return "flops"
    if cost not in METRICS:
        raise KeyedError("cost_unknown", metric=repr(cost), metrics=str(list(METRICS)))
    return cost


class Shares:
    """Each equation's share (every depth) of the program's estimated cost in ``metric`` (``flops`` or
    ``bytes``), from ``engine.cost.costs``: the top level's shares add up to 1 against the same total
    ``--cost`` prints.  A nested equation's share is its part of the sub-program's total, times the
    share of the equation that runs the sub-program (a loop's trip count is in the outer cost)."""

    def __init__(self, program: Program, metric: Metric = "flops", costs=None):
        self.metric = cost_metric(metric) or "flops"
        self.costs = costs if costs is not None else estimate(program)
        self.total = getattr(self.costs.total, self.metric)
        self.share: dict = {}
        self._walk(program, 1.0, self.total)

    def _walk(self, p: Program, scale: float, total: float, metric: str | None = None):
        metric = metric or self.metric
        for e in p.eqns:
            x = scale * getattr(self.costs.get(e.id), metric, 0) / total if total else 0.0
            self.share[e.id] = x
            for sub in e.subs:
                inner = getattr(self.costs.totals.get(path_id(sub.program.path)), metric, 0)
                self._walk(sub.program, x, inner, metric)

    @classmethod
    def measured(cls, program: Program, profile) -> Shares:
        """Shares of measured time (``--graph --profile``): each top-level equation's time, run on its own,
        over their sum (``views.compiled.run.Profile``); inside one, the estimate splits its share."""
        self = cls(program, "flops", profile.costs if hasattr(profile.costs, "totals") else None)
        self.metric, self.total = "time", profile.measured_total
        times = {r.eqn.id: r.median for r in profile.rows if r.median is not None}
        for e in program.eqns:
            x = times.get(e.id, 0.0) / self.total if self.total else 0.0
            self.share[e.id] = x
            for sub in e.subs:
                self._walk(sub.program, x, getattr(self.costs.totals.get(path_id(sub.program.path)), "flops", 0),
                           "flops")
        return self

    def of(self, eqns) -> float:
        """The summed share of ``eqns`` (top-level equations of one program: a folded call, a run)."""
        return sum(self.share.get(e.id, 0.0) for e in eqns)

    def words(self, x: float, lang: str) -> str:
        """``14% of FLOPs`` / ``占 FLOPs 的 14%``."""
        return t("share_of", lang, pct=percent(x), what=t(f"metric_{self.metric}", lang))

    def title(self, lang: str) -> str:
        """The legend's head: ``share of estimated FLOPs (total 2.3 MFLOP)``."""
        if self.metric == "time":
            return t("share_legend_time", lang, total=fmt_time(self.total))
        return t("share_legend", lang, what=t(f"metric_{self.metric}", lang),
                 total=si(self.total, "FLOP" if self.metric == "flops" else "B"))
