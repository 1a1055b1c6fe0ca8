"""views/table/live.py (issue 21): the rows a table's output does not store, served by a live kernel: the next rows
past those stored, a search past them, a call's rows; bounded messages; bad messages; the output bundle in
and out of a kernel, the saved form, and a re-run freeing the widget it replaces."""
from __future__ import annotations

import copy
import gc
import json

import jax.numpy as jnp
import pytest
from bs4 import BeautifulSoup
from jax import lax

import jaxprlens
from jaxprlens.present.rows import group_data, walk
from jaxprlens.serverext import strip_live_widgets
from jaxprlens.views import Stack
from jaxprlens.views.table import layout
from jaxprlens.views.table import live
from jaxprlens.views.table import table as tv
from fakecomm import command, reply
from memory import rss_mb
from pages import loaders


def chain(n: int, last=lax.cos):
    """``2n`` equations of sin and mul, then one ``last`` (found only at the end)."""
    def f(x):
        for _ in range(n):
            x = lax.mul(lax.sin(x), x)
        return last(x)
    return jaxprlens.trace(f, jnp.ones(4))


def _rows(recs: list) -> list:
    """Every equation row of ``recs`` (calls skipped), the rows nested in them too."""
    out = []
    for r in recs:
        if tv.is_call(r):
            continue
        out.append(r)
        out += _rows([x for b in r.subs for x in b.rows])
    return out


def widget(model_id: str):
    from ipywidgets.widgets.widget import _instances      # the open widgets by model id (ipywidgets 8)
    return _instances.get(model_id)


def size(msg: dict) -> int:
    return len(json.dumps(msg, ensure_ascii=False, separators=(",", ":")).encode())


def stored_rows(table) -> list:
    return tv.stored(table.html())["rows"]


def later(table) -> list:
    """The rows past the table's head, as its HTML writes them (one fragment per item)."""
    return [table.item_html(r) for r in table.records()[table.layout.head:]]


def ids(fragments: list) -> list:
    return [tr["data-eqn"] for tr in BeautifulSoup("<table>" + "".join(fragments) + "</table>",
                                                   "html.parser").select("tr.jl-row")]


@pytest.fixture
def small(monkeypatch):
    """STORED and ROWS_PER_MESSAGE small, so that a 1,501-equation table has rows past those stored,
    served in several answers."""
    monkeypatch.setattr(layout, "STORED", 300)
    monkeypatch.setattr(live, "ROWS_PER_MESSAGE", 250)
    return chain(750)


def test_rows_past_stored_are_the_table_s_own_rows_in_order(small):
    table = small.table()
    server = live.RowServer(table)
    expected = later(table)                  # as the output would store them all: the HTML's rows
    assert len(expected) == 1501 - 400 and ids(expected) == [str(i) for i in range(400, 1501)]
    assert stored_rows(table) == expected[:300]                      # the stored ones: the same sequence
    got, start = [], 300
    while True:
        msg = server.answer({"do": "rows", "from": start})
        assert msg["from"] == start and msg["total"] == len(expected)
        assert len(msg["rows"]) <= 250
        got += msg["rows"]
        start += len(msg["rows"])
        if not msg["rows"] or start >= msg["total"]:
            break
    assert got == expected[300:]             # exactly, a run's source line continued across answers too
    last = BeautifulSoup(got[-1], "html.parser").tr
    assert last["data-eqn"] == "1500" and last["data-primitive"] == "cos"
    assert server.cut() == len(expected) - 300
    assert server.notes() == [f"{len(expected) - 300} more equations come from the kernel as you scroll or search "
                              "(the notebook stores the first 300 as data)"]


def test_search_finds_rows_past_stored(small):
    server = live.RowServer(small.table())
    found = server.answer({"do": "search", "q": "  COS ", "from": 300})
    assert found["q"] == "cos" and found["count"] == 1 and found["groups"] == {}
    assert ids(found["rows"]) == ["1500"] and found["shown"] == 1
    src = BeautifulSoup(found["rows"][0], "html.parser").select_one(".jl-src")   # shown apart: its line too
    assert src.get_text().endswith("return last(x)")
    sin = server.answer({"do": "search", "q": "sin", "from": 300})   # a primitive, and a source line naming it
    assert sin["count"] == 1101 - 300 - 1 and len(sin["rows"]) == 250   # every line but the last says lax.sin
    assert sin["shown"] == 250
    assert server.answer({"do": "search", "q": "no such thing", "from": 0})["count"] == 0


def test_message_sizes_are_bounded():
    """At the real bounds (ROWS_PER_MESSAGE rows an answer): a row about 400 B of HTML, an answer under 1 MB."""
    p = chain(7000)
    server = live.RowServer(p.table())
    rows = server.answer({"do": "rows", "from": layout.STORED})
    found = server.answer({"do": "search", "q": "mul", "from": layout.STORED})
    assert len(rows["rows"]) == live.ROWS_PER_MESSAGE and len(found["rows"]) == live.ROWS_PER_MESSAGE
    print(f"\nrows answer: {size(rows)} B for {len(rows['rows'])} rows ({size(rows) / len(rows['rows']):.0f} B/row); "
          f"search answer: {size(found)} B")
    assert size(rows) < 1024 * 1024 and size(found) < 1024 * 1024


def test_a_cut_call_s_rows_and_search_counts(monkeypatch, fake_comm):
    from test_calls import transformer
    monkeypatch.setattr(layout, "STORED_CALLS", 200)
    monkeypatch.setattr(live, "ROWS_PER_MESSAGE", 40)
    p = transformer(6, grad=False)
    table = p.table()
    tree, cut = table.layout.tree, table.layout.cut
    stored = set(tv.stored(table.html())["groups"])
    server = live.RowServer(table)
    top = {g.id for g in layout.top_group(tree).crumbs()}         # the table's own top level: rows, not data
    assert cut and server.layout.unstored == {g for g in tree.by_id if g and g not in stored and g not in top}
    g = max(cut, key=lambda g: len(g.children))
    expected = [table.item_html(r) for r in table.records_of(g.children)]      # as a stored call's rows are
    assert len(expected) == len(g.children)
    got, start = [], 0
    while start < len(expected):
        msg = server.answer({"do": "group", "group": g.id, "from": start})
        assert msg["group"] == g.id and msg["total"] == len(expected) and len(msg["rows"]) <= 40
        got += msg["rows"]
        start += len(msg["rows"])
    assert got == expected and not any("not stored" in r for r in got)
    w = live.widget_class()(server, "")                  # through the widget: the page's ask, anywidget's command
    sent = command(w, "ask", {"do": "group", "group": g.id, "from": 0})
    assert len(sent) == 1 and reply(sent)["group"] == g.id and reply(sent)["rows"] == expected[:40]
    w.close()
    for inner in (c for g2 in cut for c in g2.groups):     # a call inside a cut one: not stored either, served too
        assert inner.id in server.layout.unstored and server.answer({"do": "group", "group": inner.id})["total"]
    # a search counts what a cut call holds: its own label matching, all of its equations
    label = group_data(g, "en")[1]
    hits = server.answer({"do": "search", "q": label, "from": 0})
    assert hits["groups"][g.id] == g.size
    exp = server.answer({"do": "search", "q": "exp", "from": 0})
    want = sum(1 for e in g.eqns for x in walk(e) if x.primitive == "exp" or "exp" in table.rows.search_text(
        next(r for r in _rows(table.records_of(g.eqns)) if r.eqn is x)))
    assert want and exp["groups"].get(g.id, 0) == want
    assert server.notes()[0].startswith(f"{sum(c.size for c in cut)} equations inside calls come from the kernel")


@pytest.mark.parametrize("msg", [None, [1], "rows", {}, {"do": 3}, {"do": "rows", "from": -1},
                                 {"do": "rows", "from": "x" * 10_000}, {"do": "rows", "from": True},
                                 {"do": "rows", "from": 1.5}, {"do": "group"}, {"do": "group", "group": ["a"]},
                                 {"do": "group", "group": "no/such" * 1000}, {"do": "search"},
                                 {"do": "search", "q": "   "}, {"do": "search", "q": 5}, {"do": "x" * 100_000}])
def test_bad_messages_get_a_short_error(small, msg):
    answer = live.RowServer(small.table()).answer(msg)
    assert set(answer) == {"error"} and len(answer["error"]) <= 300 and "Traceback" not in answer["error"]


@pytest.mark.parametrize("msg, en, zh", [
    ([1], "a message must be an object with 'do' (one of ['group', 'rows', 'search'])",
     "消息必须是带有 'do' 的对象（'do' 是以下之一：['group', 'rows', 'search']）"),
    ({"do": "x" * 300}, f"unknown request {'x' * 200!r} (must be one of ['group', 'rows', 'search'])",
     f"未知请求 {'x' * 200!r}（必须是以下之一：['group', 'rows', 'search']）"),
    ({"do": "rows", "from": -1}, "'from' must be a row number >= 0, not '-1'",
     "'from' 必须是不小于 0 的行号，而不是 '-1'"),
    ({"do": "group", "group": "no/such"}, "no call 'no/such' in this table", "这个表格中没有调用 'no/such'"),
    ({"do": "search", "q": " "}, "'q' must be the text to search for", "'q' 必须是要搜索的文本"),
])
def test_bad_messages_are_answered_in_the_table_s_language(small, msg, en, zh):
    assert live.RowServer(small.table(lang="en")).answer(msg) == {"error": en}
    assert live.RowServer(small.table(lang="zh")).answer(msg) == {"error": zh}


@pytest.mark.parametrize("lang, closed, ours", [
    ("en", "this table was closed: run its cell again to scroll or search past the stored rows",
     "unknown language 'fr' (must be one of ['en', 'zh'])"),
    ("zh", "这个表格已关闭：重新运行它的单元格，才能滚动或搜索已保存的行之后的内容",
     "未知语言 'fr'（必须是以下之一：['en', 'zh']）"),
])
def test_a_widget_answers_faults_and_a_closed_table_in_its_language(small, monkeypatch, lang, closed, ours, fake_comm):
    """A fault of JAX's or Python's is said as Python says it; ours (a keyed error) in the table's language; a
    closed widget says so, in the language of the table it served."""
    from jaxprlens.model.errors import KeyedError
    monkeypatch.setattr(live, "_kernel", lambda: True)
    data, _ = small.table(lang=lang)._repr_mimebundle_()
    w = widget(data[live.WIDGET_VIEW]["model_id"])
    monkeypatch.setattr(w.server, "search", lambda q, start: 1 / 0)
    sent = [reply(command(w, "ask", {"do": "search", "q": "x"}))]
    error = KeyedError("lang_unknown", name="'fr'", langs="['en', 'zh']")
    monkeypatch.setattr(w.server, "search", lambda q, start: (_ for _ in ()).throw(error))
    sent.append(reply(command(w, "ask", {"do": "search", "q": "x"})))
    w.close()
    sent.append(w.ask({"do": "rows"}, [])[0])          # (an ask already on its way when it closed)
    assert sent == [{"error": "ZeroDivisionError: division by zero"}, {"error": ours}, {"error": closed}]


def test_rows_from_past_the_end_is_empty(small):
    msg = live.RowServer(small.table()).answer({"do": "rows", "from": 10**9})
    assert msg["rows"] == [] and msg["total"] == 1101


def test_outside_a_kernel_the_output_is_today_s(small):
    table = small.table()
    bundle = table._repr_mimebundle_()
    assert isinstance(bundle, dict) and set(bundle) == {"text/plain", "text/html"}
    assert bundle == {"text/plain": table.text(), "text/html": table.html()}


def test_in_a_kernel_a_widget_view_that_saves_as_today(small, monkeypatch, fake_comm):
    monkeypatch.setattr(live, "_kernel", lambda: True)
    table = small.table()
    today = {"text/plain": table.text(), "text/html": table.html()}
    data, meta = table._repr_mimebundle_()
    assert meta == {"jaxprlens": {"live": True, "table": True}}
    assert {k: v for k, v in data.items() if k != live.WIDGET_VIEW} == today      # the stored form, unchanged
    w = widget(data[live.WIDGET_VIEW]["model_id"])
    assert w.html == table.body()      # the same HTML, no loader
    assert w.total == 1101 and w.calls == 0 and w.notes == live.RowServer(table).notes()
    sent = [command(w, "ask", msg) for msg in ({"do": "rows", "from": 300}, {"do": "nope"}, "rows")]
    assert all(len(m) == 1 and m[0]["kind"] == "anywidget-command-response" for m in sent)   # anywidget's reply
    assert reply(sent[0])["from"] == 300 and len(reply(sent[0])["rows"]) == 250
    assert set(reply(sent[1])) == set(reply(sent[2])) == {"error"}
    monkeypatch.setattr(w.server, "search", lambda q, start: 1 / 0)         # a fault of ours: a short note
    assert reply(command(w, "ask", {"do": "search", "q": "x"})) == {"error": "ZeroDivisionError: division by zero"}
    # saved: the widget view and our metadata go, the rest is what a table output holds today
    out = {"output_type": "execute_result", "execution_count": 3, "data": copy.deepcopy(data), "metadata": meta}
    other = {"output_type": "display_data", "data": {live.WIDGET_VIEW: {"model_id": "x"}, "text/plain": "w"},
             "metadata": {"jaxprlens": {"live": True}}}
    nb = {"cells": [{"cell_type": "code", "outputs": [out, other]}]}
    assert strip_live_widgets(nb) == 1
    assert out == {"output_type": "execute_result", "execution_count": 3, "data": today, "metadata": {}}
    assert live.WIDGET_VIEW in other["data"] and other["metadata"] == {"jaxprlens": {"live": True}}
    w.close()


def test_a_small_table_in_a_kernel_stays_as_it_is(monkeypatch):
    monkeypatch.setattr(live, "_kernel", lambda: True)
    table = chain(10).table()
    assert table._repr_mimebundle_() == {"text/plain": table.text(), "text/html": table.html()}


def test_a_stack_goes_live_with_its_table(small, monkeypatch):
    monkeypatch.setattr(live, "_kernel", lambda: True)
    stack = Stack([small.text_view(), small.table()])
    data, meta = stack._repr_mimebundle_()
    assert data["text/html"] == stack._bundle()["text/html"] and meta["jaxprlens"]["table"]
    w = widget(data[live.WIDGET_VIEW]["model_id"])
    assert w.html == stack._parts()[1] and not loaders(w.html) and "data-jl-out" not in w.html
    assert 'data-jl-view="table"' in w.html
    w.close()
    assert repr(stack) == stack._bundle()["text/plain"]


def test_a_re_run_frees_the_table_it_replaces(small, monkeypatch):
    from jaxprlens.views import cells
    monkeypatch.setattr(live, "_kernel", lambda: True)
    runs, sizes = [], []
    for k in range(10):
        monkeypatch.setattr(cells, "cell_key", lambda k=k: ("cell-1", f"run-{k}"))
        data, _ = chain(750 + k).table()._repr_mimebundle_()
        model_id = data[live.WIDGET_VIEW]["model_id"]
        w = widget(model_id)
        w.ask({"do": "search", "q": "sin", "from": 300}, [])     # texts cached: memory held
        runs.append(model_id)
        del w, data
        gc.collect()
        sizes.append(rss_mb())
    live_ids = [m for m in runs if widget(m) is not None]
    assert live_ids == [runs[-1]] and len(live._cells["cell-1"]) == 1
    ref = live._cells["cell-1"][0][1]
    print(f"\nRSS over 10 re-runs (MB): {[round(s) for s in sizes]}")
    assert sizes[-1] - sizes[2] < 40, sizes
    widget(runs[-1]).close()
    assert ref().server is None


def test_a_re_run_with_nothing_left_to_serve_closes_the_old_one_too(small, monkeypatch):
    from jaxprlens.views import cells
    monkeypatch.setattr(live, "_kernel", lambda: True)
    monkeypatch.setattr(cells, "cell_key", lambda: ("cell-2", "run-0"))
    data, _ = small.table()._repr_mimebundle_()
    old = widget(data[live.WIDGET_VIEW]["model_id"])
    monkeypatch.setattr(cells, "cell_key", lambda: ("cell-2", "run-1"))
    assert isinstance(chain(10).table()._repr_mimebundle_(), dict)       # a small table: no widget...
    assert old.server is None and widget(data[live.WIDGET_VIEW]["model_id"]) is None   # ...and the old one closed


def test_a_folded_table_s_long_top_level_past_stored(monkeypatch):
    """A top level of many calls and equations (a chain of lambdas and jnp calls): the items past the stored
    ones, calls among them, in order; a search counts their equations and returns the calls holding matches."""
    monkeypatch.setattr(layout, "STORED", 300)

    from corpus import lambda_chain
    p = jaxprlens.trace(lambda_chain(2000), jnp.ones(4), jnp.ones(4))
    table = p.table()
    expected = later(table)
    assert len(expected) == len(layout.top_items(table.layout.tree)) - layout.HEAD
    assert stored_rows(table) == expected[:300]
    server = live.RowServer(table)
    got = server.answer({"do": "rows", "from": 300})
    assert got["total"] == len(expected) and got["rows"] == expected[300:300 + live.ROWS_PER_MESSAGE]
    assert any("jl-grow" in r for r in got["rows"]) and any("jl-row" in r for r in got["rows"])
    found = server.answer({"do": "search", "q": "cos", "from": 300})
    calls = [r for r in found["rows"] if 'class="jl-grow"' in r]
    recs = table.records()[table.layout.head + 300:]
    assert calls and found["count"] == sum(1 for r in _rows(recs) if "cos" in table.rows.search_text(r))


def test_in_marimo_every_table_and_graph_is_a_widget_that_boots_its_html(monkeypatch):
    """marimo runs no script of an HTML output but draws anywidgets: there a table or graph that stores all its
    rows is still a widget, drawing the same HTML with the front end's boot (static/main.js ``show``)."""
    monkeypatch.setattr(live.cells, "in_marimo", lambda: True)
    monkeypatch.setattr(live.cells, "draws_widgets", lambda: None)
    p = jaxprlens.trace(lambda x: jnp.sin(x) * 2., jnp.ones(3))
    for view in (p.table(), p.graph()):
        data = view._repr_mimebundle_()
        data = data[0] if isinstance(data, tuple) else data
        w = widget(data[live.WIDGET_VIEW]["model_id"])
        assert type(w).__name__ == "Shown" and w.html == view.body() and not loaders(w.html)
        assert "show" in w._esm and "text/html" in data          # the stored form stays beside it
        w.close()
    monkeypatch.setattr(live.cells, "in_marimo", lambda: False)   # elsewhere (no widgets drawn): HTML alone
    assert live.WIDGET_VIEW not in p.table()._repr_mimebundle_()
