"""Course lectures as offline slides, made exactly as docs/teachers/kit_publish.md ("Slides that work offline")
tells a teacher: local copies of reveal.js, require.js, jQuery and MathJax (the versions of tests/slides/package.json,
installed with ``npm ci``), the template and the ``jupyter nbconvert --to slides`` command read from that page.
Each lecture's slides open in Chromium at 1280x720 with every request other than a ``file://`` refused, as in a
lecture hall with no network, and every slide is shown in turn: nothing is fetched, the console holds no error,
MathJax typesets and says no error, the tables, graphs and the debugger's replay come alive, and each graph's
legend is whole inside the part of its slide the audience sees.  Screenshots under ``test-output/browser/``."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import browser_harness as harness
from test_front_ends import _steps

pytestmark = pytest.mark.slow

REPO = harness.REPO
KIT = REPO / "docs" / "teachers" / "kit_publish.md"
JS = REPO / "tests" / "slides"
MODULES = JS / "node_modules"
# a graph and the debugger; the cost table with the compiled views; the cost table with seven graphs
LECTURES = ["08_debugger_and_graph", "10_accelerator_and_cost", "15_calls_are_inlined"]
VIEWPORT = {"width": 1280, "height": 720}
# where each local copy goes in the slides' folder, as the kit's commands lay it out
COPIES = {"reveal.js": "reveal.js", "mathjax": "mathjax", "require.js": "requirejs/require.js",
          "jquery.min.js": "jquery/dist/jquery.min.js"}
MATHJAX_ERRORS = re.compile(r"Math Processing Error|MathJax is not defined|File failed to load|"
                            r"Math input error|Can't load|Loading MathJax failed", re.I)
FORMULA = r"\(\frac{\partial f}{\partial x} = x^2\)"


def _section() -> str:
    text = KIT.read_text(encoding="utf-8")
    return text.split("## Slides that work offline", 1)[1].split("\n## ", 1)[0]


def _fences(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", _section(), re.S | re.M)


def kit_recipe() -> tuple[str, list[str]]:
    """The kit's template (its ``jinja`` block) and its ``jupyter nbconvert`` command, as arguments."""
    (template,) = _fences("jinja")
    command = next(b for b in _fences("bash") if "jupyter nbconvert" in b)
    argv = shlex.split(command.replace("\\\n", " "))
    assert argv[:2] == ["jupyter", "nbconvert"], argv
    return template, argv[2:]


def local_copies() -> Path:
    """reveal.js, require.js, jQuery and MathJax from tests/slides' lock, installed with ``npm ci`` when missing or
    older than the lock; skips only when Node.js or npm is missing."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        harness.skip(f"the slides' local copies of reveal.js, require.js, jQuery and MathJax come from npm: "
                     f"{' and '.join(missing)} not found (apt-get install nodejs npm; `make test` installs them "
                     f"when run as root)")
    stamp, lock = MODULES / ".package-lock.json", JS / "package-lock.json"
    if not stamp.exists() or lock.stat().st_mtime > stamp.stat().st_mtime:
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=JS, check=True)
    return MODULES


def test_kit_names_the_tested_versions():
    """The kit's ``npm pack`` line asks for the versions this test runs with."""
    pinned = json.loads((JS / "package.json").read_text())["devDependencies"]
    (fetch,) = [line for b in _fences("bash") for line in b.splitlines() if line.startswith("npm pack")]
    assert fetch.split("#")[0].split()[2:] == [f"{name}@{v}" for name, v in sorted(
        pinned.items(), key=lambda kv: ["reveal.js", "requirejs", "jquery", "mathjax"].index(kv[0]))]


@pytest.fixture(scope="module")
def talk(tmp_path_factory) -> Path:
    """The slides' folder as the kit lays it out, and the kit's command run there on the stored lectures."""
    modules = local_copies()
    template, args = kit_recipe()
    talk = tmp_path_factory.mktemp("talk")
    for name, source in COPIES.items():
        (shutil.copytree if (modules / source).is_dir() else shutil.copy)(modules / source, talk / name)
    (talk / "offline.html.j2").write_text(template, encoding="utf-8")
    # every local path the command names is there (the query after MathJax.js is its configuration)
    options = dict(a.split("=", 1) for a in args if a.startswith("--") and "=" in a)
    for key in ("reveal_url_prefix", "require_js_url", "jquery_url", "mathjax_url"):
        assert (talk / options[f"--SlidesExporter.{key}"].split("?")[0]).exists(), key
    assert (talk / args[args.index("--template-file") + 1]).exists()
    notebooks = []
    for lecture in LECTURES:
        shutil.copy(REPO / "notebooks" / "en" / f"{lecture}.ipynb", talk)
        notebooks.append(f"{lecture}.ipynb")
    argv = [notebooks if a == "lecture.ipynb" else [a] for a in args]
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    done = subprocess.run([sys.executable, "-m", "nbconvert", *[a for group in argv for a in group]], cwd=talk,
                          env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return talk


# ---------------------------------------------------------------- one walk through a lecture's slides
REVEAL = "() => new Promise(r => require(['reveal.js/dist/reveal.js'], R => { window.Reveal = R; r(); }))"
NEXT = ("() => new Promise(r => { Reveal.on('slidetransitionend', () => r(JSON.stringify(Reveal.getIndices())),"
        " { once: true }); Reveal.next(); })")
# Each graph's legend on the current slide, brought into view the way a presenter does (the slide scrolled down
# until the graph's top is at the slide's top, the drawing never moved), against the part of the slide one sees:
# the window cut by every box that clips.
LEGENDS = """() => Array.from(Reveal.getCurrentSlide().querySelectorAll('.jl-graph')).map(graph => {
  const legend = graph.querySelector('.jl-gview:not([hidden]) .jl-port svg g#legend');
  if (!legend) return { legend: null };
  const visible = () => {
    const box = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
    for (let e = legend.ownerSVGElement.parentElement; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
      // the box inside its borders and scroll bars, in the window's pixels (a slide is scaled to the window)
      const r = e.getBoundingClientRect(), kx = r.width / e.offsetWidth, ky = r.height / e.offsetHeight;
      const left = r.left + e.clientLeft * kx, top = r.top + e.clientTop * ky;
      box.left = Math.max(box.left, left); box.top = Math.max(box.top, top);
      box.right = Math.min(box.right, left + e.clientWidth * kx);
      box.bottom = Math.min(box.bottom, top + e.clientHeight * ky);
    }
    return box;
  };
  const slide = graph.closest('section');
  let box = visible(), r = legend.getBoundingClientRect();
  if (r.bottom > box.bottom || r.top < box.top) {      // the graph's top scrolled to the slide's top
    slide.scrollTop += legend.ownerSVGElement.parentElement.getBoundingClientRect().top
      - slide.getBoundingClientRect().top - slide.clientTop - 8;
    box = visible(); r = legend.getBoundingClientRect();
  }
  const round = o => Object.fromEntries(['left', 'top', 'right', 'bottom'].map(k => [k, Math.round(o[k])]));
  const whole = r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5
    && r.bottom <= box.bottom + 0.5;
  slide.scrollTop = 0;
  return { whole, legend: round(r), visible: round(box) };
})"""


class Walk:
    """What one pass through a lecture's slides saw."""

    def __init__(self):
        self.errors: list[str] = []      # console errors and uncaught exceptions
        self.fetched: list[str] = []     # requests that would have gone to the network
        self.legends: dict[str, list[dict]] = {}    # slide "h/v" -> each graph's legend there
        self.fitted: dict[str, list[dict]] = {}     # the same after the graph's "fit"
        self.replays_stepped = 0
        self.shots: list[Path] = []
        self.mathjax: dict = {}
        self.counts: dict = {}


def _walk(browser, talk: Path, lecture: str) -> Walk:
    seen = Walk()
    context = browser.new_context(viewport=VIEWPORT)

    def route(request_route):
        url = request_route.request.url
        if url.startswith("file://"):
            request_route.continue_()
        else:
            seen.fetched.append(url)
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(harness.WAIT_MS)
    page.on("console", lambda m: m.type == "error" and seen.errors.append(f"{m.text} ({m.location.get('url')})"))
    page.on("pageerror", lambda e: seen.errors.append(f"uncaught: {e}"))
    try:
        page.goto((talk / f"{lecture}.slides.html").as_uri())
        page.wait_for_selector(".reveal.ready", state="attached")
        page.evaluate(REVEAL)
        page.wait_for_function("() => window.MathJax && MathJax.isReady")
        page.evaluate("() => new Promise(r => MathJax.Hub.Queue(r))")    # its first pass over the page is done
        where = page.evaluate("JSON.stringify(Reveal.getIndices())")
        while True:
            slide = page.locator("section.present:not(.stack)")
            key = "{h}/{v}".format(**json.loads(where))
            graphs = slide.locator(".jl-graph")
            if graphs.count():
                slide.locator(".jl-graph[data-jl-ready] .jl-port svg").first.wait_for(state="attached")
                seen.legends[key] = page.evaluate(LEGENDS)
                graphs.first.scroll_into_view_if_needed()
                seen.shots.append(_shot(page, f"slides-{lecture[:2]}-{key.replace('/', '-')}"))
                for i in range(graphs.count()):
                    graphs.nth(i).locator("button.jl-z-fit").click()
                seen.fitted[key] = page.evaluate(LEGENDS)
                graphs.first.scroll_into_view_if_needed()
                seen.shots.append(_shot(page, f"slides-{lecture[:2]}-{key.replace('/', '-')}-fit"))
            replays = slide.locator(".jl-dbg-replay")
            for i in range(replays.count()):
                replay = replays.nth(i)
                replay.locator(".jl-frame").wait_for()
                replay.scroll_into_view_if_needed()
                seen.shots.append(_shot(page, f"slides-{lecture[:2]}-{key.replace('/', '-')}-replay"))
                _steps(replay)
                seen.replays_stepped += 1
            if slide.locator(".jl-table").count():
                slide.locator(".jl-table").first.scroll_into_view_if_needed()
                seen.shots.append(_shot(page, f"slides-{lecture[:2]}-{key.replace('/', '-')}-table"))
            if page.evaluate("Reveal.isLastSlide()"):
                break
            where = page.evaluate(NEXT)
        # a formula typeset by the local MathJax, in a slide, with no network
        seen.mathjax = page.evaluate("""tex => new Promise(r => {
            const div = document.createElement('div'); div.textContent = tex;
            Reveal.getCurrentSlide().appendChild(div);
            MathJax.Hub.Queue(['Typeset', MathJax.Hub, div], () => r({
              typeset: div.querySelectorAll('.mjx-chtml').length,
              errors: div.querySelectorAll('merror, .MathJax_Error, .mjx-merror').length, text: div.textContent }));
        })""", FORMULA)
        seen.counts = page.evaluate("""() => ({
            tables: document.querySelectorAll('.jl-table').length,
            tables_alive: document.querySelectorAll('.jl-table[data-jl-ready]').length,
            graphs: document.querySelectorAll('.jl-graph').length,
            graphs_alive: document.querySelectorAll('.jl-graph.jl-live[data-jl-ready]').length,
            replays: document.querySelectorAll('.jl-dbg-replay').length,
            snapshots_shown: Array.from(document.querySelectorAll('.jl-dbg-static')).filter(e => e.offsetParent).length,
            formulas_typeset: document.querySelectorAll('.jp-MarkdownOutput .mjx-chtml').length,
            page_text: document.body.innerText })""")
    finally:
        context.close()
    return seen


def _shot(page, name: str) -> Path:
    harness.OUTPUT.mkdir(parents=True, exist_ok=True)
    path = harness.OUTPUT / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def _formulas(lecture: str) -> int:
    """The formulas in a lecture's prose (``$...$``, ``$$...$$``, ``\\(...\\)``, ``\\[...\\]``), code spans left out."""
    cells = json.loads((REPO / "notebooks" / "en" / f"{lecture}.ipynb").read_text(encoding="utf-8"))["cells"]
    prose = "".join(re.sub(r"`[^`]*`", "", "".join(c["source"])) for c in cells if c["cell_type"] == "markdown")
    return len(re.findall(r"\$\$.+?\$\$|\$[^$\n]+\$|\\\(.+?\\\)|\\\[.+?\\\]", prose, re.S))


@pytest.fixture(scope="module")
def walks(browser, talk):
    done: dict[str, Walk] = {}

    def walk(lecture: str) -> Walk:
        if lecture not in done:
            done[lecture] = _walk(browser, talk, lecture)
        return done[lecture]
    return walk


@pytest.mark.browser
@pytest.mark.parametrize("lecture", LECTURES)
def test_offline_slides_fetch_nothing_and_every_view_comes_alive(walks, lecture):
    seen = walks(lecture)
    assert seen.fetched == []
    assert seen.errors == []
    assert not MATHJAX_ERRORS.search(seen.counts["page_text"])
    assert (seen.mathjax["typeset"], seen.mathjax["errors"]) == (1, 0)
    assert FORMULA not in seen.mathjax["text"]                      # the TeX became math
    assert seen.counts["formulas_typeset"] == _formulas(lecture)
    assert seen.counts["tables"] == seen.counts["tables_alive"] >= 1
    assert seen.counts["graphs"] == seen.counts["graphs_alive"] == sum(map(len, seen.legends.values()))
    assert seen.replays_stepped == seen.counts["replays"]
    assert seen.counts["snapshots_shown"] == 0
    expected = {"08_debugger_and_graph": (1, 1), "10_accelerator_and_cost": (0, 0),
                "15_calls_are_inlined": (7, 0)}[lecture]
    assert (seen.counts["graphs"], seen.counts["replays"]) == expected


@pytest.mark.browser
@pytest.mark.parametrize("lecture", ["08_debugger_and_graph", "15_calls_are_inlined"])
def test_every_graph_legend_is_whole_on_its_slide(walks, lecture):
    """As each slide is shown, before any click: lecture 15 has drawings wider than the slide's 790 px at the
    graph's smallest starting zoom (0.75); their view starts moved just enough that the legend is whole."""
    legends = walks(lecture).legends
    assert legends
    cut = {key: [each for each in graphs if not each["whole"]] for key, graphs in legends.items()}
    assert {key: each for key, each in cut.items() if each} == {}


@pytest.mark.browser
@pytest.mark.parametrize("lecture", ["08_debugger_and_graph", "15_calls_are_inlined"])
def test_fit_shows_every_legend_whole(walks, lecture):
    """After the graph's "fit" button the whole drawing, its legend with it, is inside the slide."""
    fitted = walks(lecture).fitted
    assert fitted
    cut = {key: [each for each in graphs if not each["whole"]] for key, graphs in fitted.items()}
    assert {key: each for key, each in cut.items() if each} == {}
