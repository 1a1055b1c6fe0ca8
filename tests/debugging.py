"""What the debugger's tests share: a debugger on a seed program with the messages it sends recorded, a state
as sent read back as data, a replay's closing note and its stored data."""
import re

from seeds import SEEDS

from jaxprlens.model import trace
from jaxprlens.views.debugger.debugger import Debugger


def debugger(name, **options) -> Debugger:
    fn, args = SEEDS[name]
    d = trace(fn, *args).debugger(**options)
    d.sent = d.comm.sent
    d.press("ready")
    return d


def read(state: dict) -> dict:
    """A state as sent, with what its panel's HTML shows read back as data: ``crumbs``, ``notes`` (``[kind,
    text]``, a note's button aside), ``values`` (``[{title, items: [{name, path, shape, dtype, stats, preview}]}]``)
    and ``changed`` (the values marked as changed by an edit)."""
    from bs4 import BeautifulSoup
    view = {k: BeautifulSoup(v, "html.parser") for k, v in state["view"].items()}
    notes = []
    for div in view["notes"].select("div.jl-note"):
        kind = next(c[3:] for c in div["class"] if c != "jl-note")
        notes.append([kind, "".join(x for x in div.contents if isinstance(x, str))])
    groups = []
    for tr in view["values"].select("tr.jl-value"):
        data = tr.find_next_sibling("tr")
        path = tr.select_one(".jl-path")
        stats = data.select_one(".jl-stats")
        item = {"name": tr.select_one("var").get_text(), "path": path.get_text() if path else "",
                "shape": tr.select("td")[2].get_text(), "dtype": tr.select("td")[3].get_text(),
                "stats": stats.get_text() if stats else "", "preview": data.select_one("pre.jl-val").get_text()}
        title = tr.select_one("td.jl-vtitle").get_text()
        if not groups or groups[-1]["title"] != title:
            groups.append({"title": title, "items": []})
        groups[-1]["items"].append(item)
    return dict(state, crumbs=[s.get_text() for s in view["crumbs"].select("span")], notes=notes, values=groups,
                changed=sorted({tr["data-var"] for tr in view["values"].select("tr.jl-value.jl-changed")}))


def state(d: Debugger) -> dict:
    return read(d.sent[-1]["content"]["state"])


def note(rec: dict) -> str | None:
    """The text of a recorded replay's closing note (why it ends), or None."""
    from bs4 import BeautifulSoup
    return None if rec["note"] is None else BeautifulSoup(rec["note"], "html.parser").get_text()


def values(d: Debugger) -> dict:
    """{(title, name): (shape, dtype, stats, preview)} from the last state sent."""
    return {(g["title"], it["name"]): (it["shape"], it["dtype"], it["stats"], it["preview"])
            for g in state(d)["values"] for it in g["items"]}


def stored_data(html: str) -> dict:
    """The recorded replay as the page's script reads it from the stored output."""
    from jaxprlens.views.debugger.replay import unstored
    m = re.findall(r'<script type="application/octet-stream" class="jl-dbg-data" data-z="deflate-raw">(.*?)</script>',
                   html, re.S)
    assert len(m) == 1, "the replay stores its data in one script tag"
    return unstored(m[0])


def soup(text: str):
    from bs4 import BeautifulSoup
    return BeautifulSoup(text, "html.parser")
