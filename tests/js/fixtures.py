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

import jax.numpy as jnp
from jax import lax

from jaxprlens import trace
from jaxprlens.present.rows import walk
from jaxprlens.views.table import layout
from jaxprlens.views.debugger.state import StateView
from jaxprlens.views.debugger.replay import record, replay_html
from jaxprlens.views.table.table import Table, is_call

import fakecomm                                                        # tests/fakecomm.py: a comm that keeps messages


# ---------------------------------------------------------------- a table past BIG rows (script-drawn rows)

K = jnp.arange(3.0)      # a constant the program closes over: its uses are marked as a constant's


def chain(x, y, n):
    """Each line makes one equation, so a search for "cos" finds the cos rows only; a while loop at row 520
    (its body using ``y``: a body constant, bound into the body), a constant used past it."""
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
    return x - K


def search_texts(table) -> dict:
    """Each equation's id -> what a search reads of its row (``Rows.search_text``), every row nested too."""
    out = {}

    def visit(row):
        out[row.eqn.id] = table.rows.search_text(row)
        for sub in row.subs:
            for r in sub.rows:
                visit(r)
    for rec in table.records():
        if not is_call(rec):
            visit(rec)
    return out


def full_html(p) -> str:
    """The table with every row written as HTML by Python (no head, nothing stored): the reference the rows
    the script inserts are compared with."""
    big = layout.BIG
    layout.BIG = 10**9
    try:
        return Table(p).html()
    finally:
        layout.BIG = big


def table_fixture() -> dict:
    p = trace(chain, jnp.ones(3), jnp.ones(3), 3)
    assert len(p.eqns) > layout.BIG and p.constvars
    every = [e for top in p.eqns for e in walk(top)]
    table = Table(p)
    texts = search_texts(table)
    for e in every:      # the search below counts exactly the cos rows: no other row's text says "cos"
        assert (e.primitive == "cos") == ("cos" in texts[e.id]), texts[e.id]
    loop = next(e for e in p.eqns if e.primitive == "while")
    assert p.eqns.index(loop) > layout.HEAD
    return {"html": table.html(), "full": full_html(p), "eqns": len(p.eqns), "every": len(every),
            "head": table.layout.head, "texts": texts,
            "count": {q: sum(e.primitive == q for e in every) for q in ("cos", "sin", "tanh", "while")},
            "while": loop.id, "const": p.constvars[0].name}


# ---------------------------------------------------------------- a live table: rows the output did not store

def live_fixture() -> dict:
    """The widget's traits (views/table/live.py LiveTable) and the RowServer's answers to what live.js will ask."""
    from jaxprlens.views.table import live
    stored, layout.STORED = layout.STORED, 50        # the output stores 50 rows past the head: the loop is past them
    try:
        p = trace(chain, jnp.ones(3), jnp.ones(3), 3)
        table = Table(p)
        server = live.RowServer(table)
        kept = table.layout.stored
        asks = [{"do": "rows", "from": kept}] + [{"do": "search", "q": q, "from": kept} for q in ("cos", "tanh")]
        return {"html": table.html(), "total": len(table.layout.later), "calls": 0, "notes": server.notes(),
                "stored": kept, "every": len([e for top in p.eqns for e in walk(top)]),
                "answers": [[ask, server.answer(ask)] for ask in asks],
                "count": {q: sum(e.primitive == q for top in p.eqns for e in walk(top)) for q in ("cos", "tanh")}}
    finally:
        layout.STORED = stored


# ---------------------------------------------------------------- a table folded by calls

def calls_fixture() -> dict:
    from test_calls import transformer
    from jaxprlens.model.calls import Group, call_tree
    p = transformer()
    tree = call_tree(p)
    every = [e for top in p.eqns for e in walk(top)]
    table = Table(p)
    texts = {}
    for g in tree.root.walk():            # what a search reads of every row, as the table writes it
        recs = table.records_of(g.children)
        stack = [r for r in recs if not is_call(r)]
        while stack:
            r = stack.pop()
            texts[r.eqn.id] = table.rows.search_text(r)
            stack += [x for b in r.subs for x in b.rows]
    clean = {}               # primitives no other row's text (names, params, source) mentions: a search counts them
    for q in sorted({e.primitive for e in every}):
        others = [e for e in every if e.primitive != q and q in texts[e.id]]
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
    view = StateView(st, "en")
    s = view.state(jit=False)
    return dict({k: s[k] for k in ("frame", "pc", "eqn", "crumbs", "done")}, marks=view.marks())


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
    marks = [StateView(st, "en").marks()]                    # the rows' marks as the snapshot writes them
    st.step()
    marks.append(StateView(st, "en").marks())
    data = record(p, lang="en", edits=st.edits)
    return {"html": replay_html(data, "en"), "marked": StateView(st, "en").changed_eqns(),
            "needs_kernel": t("edit_needs_kernel", "en"), "marks": marks}


def live_debugger_fixture() -> dict:
    """The messages the live Debugger sent for each of a reader's asks, in order: a Step, a what-if NaN on the
    value eqn 0 wrote, two Steps (the second sends no change of marks), a Continue to the end."""
    p = trace(loop, jnp.array((1.0, 2.0)), 3)
    with fakecomm.installed():
        d = p.debugger()
    asks = [{"do": "ready"}, {"do": "step"}, {"do": "edit", "var": p.eqns[0].outvars[0].name, "op": "nan"},
            {"do": "step"}, {"do": "step"}, {"do": "continue"}]
    return {"answers": _asked(d, asks), "labels": d.labels, "marked": d.view.changed_eqns()}


def _asked(d, asks: list) -> list:
    """``[ask, the messages the debugger sent for it (its command's reply last)]`` for each of a page's asks, the
    comparison with jax.jit asked for where an answer says so, as static/dbglive.js asks for it."""
    answers, asks = [], list(asks)
    while asks:
        ask = asks.pop(0)
        sent = fakecomm.command(d, "ask", ask)
        answers.append([ask, sent])
        if fakecomm.reply(sent).get("compare"):
            asks.insert(0, {"do": "compare"})
    return answers


def _unit(x, w):
    x = jnp.sin(x) * w
    x = jnp.cos(x) + w
    return jnp.tanh(x) * w


def _stage(x, w):
    for _ in range(20):
        x = _unit(x, w)
    return x


def layers(x, w):
    """Three calls of a stage of 20 calls of 6 equations: a frame the debugger folds by calls
    (views/debugger/fold.py)."""
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
    with fakecomm.installed():
        d = p.debugger()
    answers = _asked(d, [{"do": "ready"}, {"do": "call"}, {"do": "body", "path": "", "group": "layers/_stage.3"}])
    return {"html": replay_html(record(p, x, w, lang="en"), "en"), "over": st.frame.pc, "answers": answers,
            "labels": d.labels}


def main(out: str) -> None:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in (("table", table_fixture), ("live", live_fixture), ("calls", calls_fixture),
                       ("replay", replay_fixture),
                       ("replay_inf", replay_inf_fixture), ("replay_edit", replay_edit_fixture),
                       ("live_debugger", live_debugger_fixture), ("dbgfold", dbgfold_fixture)):
        (folder / f"{name}.json").write_text(json.dumps(make(), ensure_ascii=False, indent=0, sort_keys=True))
    print(f"fixtures written to {folder}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).parent / ".fixtures"))
