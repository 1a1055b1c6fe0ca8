"""Writes what the Python side emits for the JavaScript unit tests (tests/js/*.test.mjs) to read: stored outputs
(a big table, a table folded by calls, a recorded replay) and what the engine says they must show.

Run by scripts/js_tests.sh before ``node --test``: ``python tests/js/fixtures.py tests/js/.fixtures``.  Made
fresh each run from the installed JAX, so the fixtures never go stale; deterministic (no addresses, no times).
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))          # tests/: the models test_calls builds

import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

from jaxprlens import trace  # noqa: E402
from jaxprlens.present.rows import data_row, walk  # noqa: E402
from jaxprlens.views.dbgstate import StateView  # noqa: E402
from jaxprlens.views.replay import record, replay_html  # noqa: E402
from jaxprlens.views.table import BIG, HEAD  # noqa: E402


# ---------------------------------------------------------------- a table past BIG rows (script-drawn rows)

def chain(x, y, n):
    """Each line makes one equation, so a search for "cos" finds the cos rows only; a while loop at row 520."""
    def body(i, c):
        c = jnp.cos(c)
        return c * y

    for _ in range(130):
        x = jnp.sin(x)
        x = x * y
        x = jnp.tanh(x)
        x = x + 2.0
    x = lax.fori_loop(0, n, body, x)
    for _ in range(130):
        x = jnp.sin(x)
        x = x * y
        x = jnp.cos(x)
        x = x - 1.0
    return x


def table_fixture() -> dict:
    p = trace(chain, jnp.ones(3), jnp.ones(3), 3)
    assert len(p.eqns) > BIG
    every = [e for top in p.eqns for e in walk(top)]
    for e in every:      # the search below counts exactly the cos rows: no other row's text says "cos"
        row = data_row(e, "en")
        text = " ".join([row["id"], row["params"], row.get("src", "")] + row["ins"] + [o[0] for o in row["outs"]])
        assert (e.primitive == "cos") == ("cos" in text.lower() or e.primitive == "cos"), row
    plain = [e for e in p.eqns[:HEAD] if not e.subs and not e.roles][:40]     # rows drawn both ways
    return {"html": p.table().html(), "eqns": len(p.eqns), "every": len(every), "head": HEAD,
            "count": {q: sum(e.primitive == q for e in every) for q in ("cos", "sin", "tanh", "while")},
            "records": [data_row(e, "en") for e in plain],
            "while": next(e.id for e in p.eqns if e.primitive == "while")}


# ---------------------------------------------------------------- a live table: rows the output did not store

def live_fixture() -> dict:
    """The widget's traits (views/live.py LiveTable) and the RowServer's answers to what live.js will ask."""
    from jaxprlens.present.i18n import t
    from jaxprlens.views import live, table as tv
    stored, tv.STORED = tv.STORED, 300               # the output stores 300 of the rows past the head
    try:
        p = trace(chain, jnp.ones(3), jnp.ones(3), 3)
        table = tv.Table(p)
        server = live.RowServer(table)
        _, later, kept, _ = server.layout()
        asks = [{"do": "rows", "from": kept}] + [{"do": "search", "q": q, "from": kept} for q in ("cos", "tanh")]
        return {"html": table.html(), "total": len(later), "calls": 0, "notes": server.notes(),
                "unstored": t("rows_not_stored", "en"), "stored": kept, "every": len([e for top in p.eqns
                                                                                  for e in walk(top)]),
                "answers": [[ask, server.answer(ask)] for ask in asks],
                "count": {q: sum(e.primitive == q for top in p.eqns for e in walk(top)) for q in ("cos", "tanh")}}
    finally:
        tv.STORED = stored


# ---------------------------------------------------------------- a table folded by calls

def calls_fixture() -> dict:
    from test_calls import transformer
    from jaxprlens.model.calls import Group, call_tree
    p = transformer()
    tree = call_tree(p)
    every = [e for top in p.eqns for e in walk(top)]
    clean = {}               # primitives no other row's text (params, source, names) mentions: a search counts them
    for q in sorted({e.primitive for e in every}):
        others = [e for e in every if e.primitive != q and q in " ".join(
            [data_row(e, "en")["params"], data_row(e, "en").get("src", "")]).lower()]
        if not others and q.isidentifier() and len(q) > 3:
            clean[q] = sum(e.primitive == q for e in every)
    return {"html": p.table().html(), "top": [g.id for g in tree.root.groups], "clean": clean,
            "children": {g.id: [["group", c.id] if isinstance(c, Group) else ["eqn", c.id] for c in g.children]
                         for g in tree.root.walk() if g.id}}


# ---------------------------------------------------------------- a recorded replay, and where the engine stops

def loop(x, n):
    y = jnp.sin(x) * 2.0
    y = lax.fori_loop(0, n, lambda i, c: c * 1.5 + 1.0, y)
    return jnp.cos(y).sum()


MOVES = {                            # each from the start; a move is a button (toggle:ID / cond:TEXT set first)
    "into x3": ["into", "into", "into"],
    "step x2": ["step", "step"],
    "step over the loop": ["step", "step", "step"],
    "into the loop, then out": ["step", "step", "into", "into", "out"],
    "continue to the end": ["continue"],
    "into, into, back": ["into", "into", "back"],
    "reset": ["into", "into", "reset"],
    "breakpoint at the top": ["toggle:3", "continue"],
    "breakpoint in the body": ["into", "into", "into", "into", "toggle:2/body/1", "reset", "continue"],
    "breakpoint in the body, continue twice": ["into", "into", "into", "into", "toggle:2/body/1", "reset",
                                               "continue", "continue"],
    "condition max > 6": ["cond:max > 6", "continue"],
    "condition any NaN (none)": ["cond:any NaN", "continue"],
    "condition max > 6, step out of the body": ["into", "into", "into", "into", "cond:max > 6", "out"],
    "step out of the body, then back": ["into", "into", "into", "into", "out", "back"],
    "continue to a condition, then back": ["into", "cond:max > 6", "continue", "back"],
    "step out stops at a breakpoint in the next iteration": ["into", "into", "into", "into", "toggle:2/body/1",
                                                             "into", "into", "out"],
    "step over the loop with a condition": ["step", "step", "cond:max > 6", "step"],
}
INF_MOVES = {"condition max > 1e3 on [1, inf]": ["cond:max > 1e3", "continue"]}


def engine_state(program, moves) -> dict:
    st = program.stepper()
    do = {"step": st.step, "into": st.step_into, "out": st.step_out, "continue": st.run, "back": st.back,
          "reset": st.reset}
    for m in moves:
        if m.startswith("toggle:"):
            st.toggle_breakpoint(eqn=m[7:])
        elif m.startswith("cond:"):
            st.add_condition(m[5:])
        else:
            do[m]()
    s = StateView(st, "en").state(jit=False)
    return {k: s[k] for k in ("frame", "pc", "eqn", "crumbs", "done")}


def scaled(x, n):             # inf stays inf (sin(inf) would be NaN)
    y = x * 2.0
    y = lax.fori_loop(0, n, lambda i, c: c * 1.5 + 1.0, y)
    return jnp.cos(y).sum()


def replay_fixture(fn=loop, x=(1.0, 2.0), moves=MOVES) -> dict:
    p = trace(fn, jnp.array(x), 3)
    data = record(p, lang="en")
    return {"html": replay_html(data, "en"), "steps": len(data["steps"]),
            "moves": {name: {"moves": m, "engine": engine_state(p, m)} for name, m in moves.items()}}


def replay_inf_fixture() -> dict:
    return replay_fixture(scaled, (1.0, float("inf")), INF_MOVES)


def replay_edit_fixture() -> dict:
    """A replay recorded after a live edit: the value eqn 0 wrote set to NaN, then one Step."""
    from jaxprlens.present.i18n import t
    p = trace(loop, jnp.array((1.0, 2.0)), 3)
    st = p.stepper()
    st.step()
    st.set_value(p.eqns[0].outvars[0], jnp.full(2, jnp.nan))
    st.step()
    data = record(p, lang="en", edits=st.edits)
    return {"html": replay_html(data, "en"), "marked": StateView(st, "en").changed_eqns(),
            "needs_kernel": t("edit_needs_kernel", "en")}


def live_debugger_fixture() -> dict:
    """The messages the live Debugger sent for each of a reader's asks, in order: a Step, a what-if NaN on the
    value eqn 0 wrote, two Steps (the second sends no change of marks), a Continue to the end."""
    p = trace(loop, jnp.array((1.0, 2.0)), 3)
    d = p.debugger()
    sent: list = []
    d._send = lambda msg, buffers=None: sent.append(json.loads(json.dumps(msg["content"])))
    asks = [{"do": "ready"}, {"do": "step"}, {"do": "edit", "var": p.eqns[0].outvars[0].name, "op": "nan"},
            {"do": "step"}, {"do": "step"}, {"do": "continue"}]
    answers = []
    for ask in asks:
        n = len(sent)
        d._on_msg(d, ask, [])
        answers.append([ask, sent[n:]])
    return {"answers": answers, "labels": d.labels, "marked": d.view.changed_eqns()}


def _unit(x, w):
    x = jnp.sin(x) * w
    x = jnp.cos(x) + w
    return jnp.tanh(x) * w


def _stage(x, w):
    for _ in range(20):
        x = _unit(x, w)
    return x


def layers(x, w):
    """Three calls of a stage of 20 calls of 6 equations: a frame the debugger folds by calls (views/dbgfold.py)."""
    x = _stage(x, w)
    x = _stage(x, w)
    return _stage(x, w)


def dbgfold_fixture() -> dict:
    """A frame folded by calls: its replay, where the engine's Over call lands from the start, and the messages
    the live Debugger sent for a ready, an Over call and a click opening a folded call."""
    from jaxprlens.engine.landings import over_call
    x, w = jnp.array((1.0, 2.0)), jnp.float32(0.5)
    p = trace(layers, x, w)
    st = p.stepper()
    over_call(st)
    d = p.debugger()
    sent: list = []
    d._send = lambda msg, buffers=None: sent.append(json.loads(json.dumps(msg["content"])))
    asks = [{"do": "ready"}, {"do": "call"}, {"do": "body", "path": "", "group": "layers/_stage.3"}]
    answers = []
    for ask in asks:
        n = len(sent)
        d._on_msg(d, ask, [])
        answers.append([ask, sent[n:]])
    return {"html": replay_html(record(p, x, w, lang="en"), "en"), "over": st.frame.pc, "answers": answers,
            "labels": d.labels}


def main(out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in (("table", table_fixture), ("live", live_fixture), ("calls", calls_fixture), ("replay", replay_fixture),
                       ("replay_inf", replay_inf_fixture), ("replay_edit", replay_edit_fixture),
                       ("live_debugger", live_debugger_fixture), ("dbgfold", dbgfold_fixture)):
        (folder / f"{name}.json").write_text(json.dumps(make(), ensure_ascii=False, indent=0, sort_keys=True))
    print(f"fixtures written to {folder}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent / ".fixtures"))
