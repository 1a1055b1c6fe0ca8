"""The course's two editions from one bilingual source: how a lecture's markdown, labels, headings and code
comments split into English and Chinese, and the slide metadata each cell gets.

Conventions of ``notebooks/src/*.py`` (``split_markdown`` raises on a paragraph that breaks them):

- a paragraph (or a blockquote paragraph, between ``>`` lines) is in one language: Chinese when it has at
  least as many Chinese characters as English words outside code spans, English otherwise; a paragraph with
  neither (a code block, a formula) belongs to both editions;
- a heading ``## English / 中文`` and a bold label ``**English / 中文**`` carry both languages; a label that
  opens an English paragraph is moved to the start of the Chinese paragraph that follows it;
- in code, a comment line in Chinese next to one in English is a translation, and ``# English / 中文``
  after code is one comment in two languages; code itself is the same in both editions;
- in a Chinese paragraph a line break between two Chinese characters is removed: Markdown turns a soft break
  into a space, which Chinese text does not have;
- a solution cell (tagged ``solution-N``, folded by ``source_hidden``) opens with ``SOLUTION_LINES``, the English
  line then the Chinese one: a folded cell shows its first line (JupyterLab, Notebook 7), which must not be
  the answer.
"""
from __future__ import annotations

import re

LANGS = ("en", "zh")
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
WORD = re.compile(r"[A-Za-z]{2,}")
CODE_SPAN = re.compile(r"`[^`]*`|\]\([^)]*\)|<[^>]*>|\$[^$]*\$")
LABEL = re.compile(r"\*\*([^*]+?) / ([^*]+?)\*\*")
HEADING = re.compile(r"^(#+ )(.*)$")
ZH_CONFIG = "%jaxpr_config --lang zh"
SOLUTION_LINES = {"en": "# Solution: click to open", "zh": "# 参考答案：点击展开"}


class SplitError(ValueError):
    """A source paragraph that does not say which language it is in."""


def counts(text: str) -> tuple[int, int]:
    """(Chinese characters, English words) of ``text`` outside code spans, links and math."""
    plain = CODE_SPAN.sub(" ", text)
    return len(CJK.findall(plain)), len(WORD.findall(plain))


def language_of(text: str) -> str | None:
    """``"zh"``, ``"en"``, or ``None`` for text in neither (code, numbers, a formula)."""
    cjk, words = counts(text)
    if cjk and cjk >= words:
        return "zh"
    return "en" if words else None


def _pair(left: str, right: str) -> bool:
    return bool(CJK.search(right)) and not CJK.search(left)


def split_heading(line: str, lang: str) -> str:
    m = HEADING.match(line)
    if not m:
        return line
    title = m.group(2)
    for i in [i.start() for i in re.finditer(" / ", title)]:
        if _pair(title[:i], title[i + 3:]):
            return m.group(1) + (title[:i] if lang == "en" else title[i + 3:])
    return line


def _label(m: re.Match, lang: str) -> str:
    en, zh = m.group(1), m.group(2)
    if not _pair(en, zh):
        return m.group(0)
    stop = zh[-1] if zh[-1] in ".:" else ""
    return f"**{en}{stop}**" if lang == "en" else f"**{zh.rstrip('.:')}**"


def _zh_label(text: str) -> str | None:
    """The Chinese side of a bilingual label that opens ``text``, written as the opening of a zh paragraph."""
    m = LABEL.match(text.lstrip("> ").lstrip())
    if m and _pair(m.group(1), m.group(2)):
        return f"**{m.group(2).rstrip('.:')}**："
    return None


SOFT_BREAK = re.compile(rf"(?<={CJK.pattern})\n(> ?)?[ \t]*(?={CJK.pattern})")


def join_soft_breaks(text: str) -> str:
    """``text`` with each line break between two Chinese characters removed (a blockquote's ``>`` with it)."""
    return SOFT_BREAK.sub("", text)


def _blocks(text: str) -> list[list[str]]:
    """Paragraphs: runs of lines between blank lines (or lone ``>`` lines); a fenced code block is one."""
    blocks, cur, fenced = [], [], False
    for line in text.split("\n"):
        if line.lstrip("> ").startswith("```"):
            fenced = not fenced
        if not fenced and line.strip() in ("", ">") and not line.lstrip("> ").startswith("```"):
            if cur:
                blocks.append(cur)
                cur = []
            continue
        cur.append(line)
    if cur:
        blocks.append(cur)
    return blocks


def _block_language(lines: list[str], where: str) -> str | None:
    if lines[0].lstrip("> ").startswith("```"):
        return None
    text = LABEL.sub(lambda m: m.group(1) if _pair(m.group(1), m.group(2)) else m.group(0), "\n".join(lines))
    if all(HEADING.match(ln) for ln in lines):
        return None
    langs = {language_of(ln.lstrip("> ")) for ln in text.split("\n") if counts(ln)[0] >= 4 or counts(ln)[1] >= 4}
    langs.discard(None)
    whole = language_of(text)
    if len(langs) > 1 and not (whole == "en" and counts(text)[0] * 4 < counts(text)[1]):
        raise SplitError(f"{where}: a paragraph mixes English and Chinese lines; put a blank line "
                         f"(or a lone '>') between them: {lines[0][:60]!r}")
    return whole


def split_markdown(text: str, lang: str, where: str = "") -> str:
    """The ``lang`` edition of a bilingual markdown cell (``""`` when it has nothing in that language)."""
    out: list[tuple[bool, str]] = []        # (quoted, paragraph)
    carry = None                            # a label moved from an English paragraph to the Chinese one
    for lines in _blocks(text):
        own = _block_language(lines, where)
        quoted = lines[0].startswith(">")
        if own == "en":
            carry = _zh_label("\n".join(lines))
        if own not in (None, lang):
            continue
        body = "\n".join(split_heading(ln, lang) for ln in lines)
        body = LABEL.sub(lambda m: _label(m, lang), body)
        if own == "zh" and carry and not body.lstrip("> ").startswith("**"):
            prefix = "> " if quoted else ""
            listed = re.match(r"[-*] |\d+\. ", body[len(prefix):])      # a list starts on its own line
            body = prefix + carry + ("\n" + prefix if listed else "") + body[len(prefix):]
        if own == "zh":
            carry = None
            body = join_soft_breaks(body)
        out.append((quoted, body))
    text = ""
    for i, (quoted, body) in enumerate(out):
        if i:
            text += "\n>\n" if quoted and out[i - 1][0] else "\n\n"
        text += body
    return text


def split_code(code: str, lang: str) -> str:
    """The ``lang`` edition of a code cell: the same code, comments in ``lang`` only."""
    lines = code.split("\n")
    full = [(i, ln) for i, ln in enumerate(lines) if ln.lstrip().startswith("# ")]
    translated = {language_of(ln) for _, ln in full} >= {"en", "zh"}
    out = []
    for ln in lines:
        if translated and ln.lstrip().startswith("# ") and language_of(ln) not in (None, lang):
            continue
        m = re.match(r"^(.*?\S.*?  # )(.*?) / (.*)$", ln)
        if m and not ln.lstrip().startswith("#") and _pair(m.group(2), m.group(3)):
            ln = m.group(1) + (m.group(2) if lang == "en" else m.group(3))
        out.append(ln)
    return "\n".join(out)


def code_only(code: str) -> str:
    """A code cell without its comments and the Chinese edition's language line: equal in both editions."""
    lines = [ln for ln in code.split("\n") if ln.strip() != ZH_CONFIG and not ln.lstrip().startswith("# ")]
    return "\n".join(re.sub(r"  # .*$", "", ln) for ln in lines)


# A lecture on many devices sets XLA's flags in its first cell, before ``%load_ext jaxprlens`` imports JAX: XLA
# reads them once, when JAX starts its backend.
DEVICE_FLAGS = re.compile(r'(?m)^(?:import os|os\.environ\["XLA_FLAGS"\] = "[^"\n]*"|# .*)?\n')


def without_device_flags(source: str) -> str:
    """A first code cell without the lines before ``%load_ext jaxprlens`` that set XLA's flags (``import os``,
    ``os.environ["XLA_FLAGS"] = ...``, comments, blank lines); any other cell as it is."""
    head, sep, rest = source.partition("%load_ext jaxprlens")
    return DEVICE_FLAGS.sub("", head + "\n") + sep + rest if sep and head else source


def slide_type(cell, first_code: bool) -> str:
    """RISE's ``slide_type``: a new slide per heading, a subslide per paragraph of prose, code with its prose;
    the setup cell and the folded solutions are not shown."""
    tags = cell.metadata.get("tags", [])
    if cell.cell_type == "markdown":
        return "slide" if re.match(r"#{1,2} ", cell.source) else "subslide"
    if first_code or "checks" in tags or any(t.startswith("solution-") for t in tags):
        return "skip"
    return "-"


def edition(nb, lang: str, name: str = "", sources: list = ()):
    """Turn a freshly read bilingual notebook into its ``lang`` edition in place (before it is executed);
    ``sources`` are the lectures a syllabus lists where it says ``<!-- lectures -->``."""
    cells, first = [], True
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            cell.source = split_markdown(cell.source, lang, f"{name} cell {i}")
            if LECTURES_MARK in cell.source:
                cell.source = cell.source.replace(LECTURES_MARK, lecture_table(sources, lang))
            if not cell.source.strip():
                continue
        elif cell.cell_type == "code":
            cell.source = split_code(cell.source, lang)
            if first and lang == "zh":
                cell.source = cell.source.rstrip("\n") + "\n" + ZH_CONFIG
        cell.metadata["slideshow"] = {"slide_type": slide_type(cell, first and cell.cell_type == "code")}
        first = first and cell.cell_type != "code"
        cells.append(cell)
    nb.cells = cells
    nb.metadata["jaxprlens"] = {"edition": lang}
    return nb


ENGLISH_RUN = re.compile(r"(?:[A-Za-z][\w'’-]*[ ,]+){4,}[A-Za-z][\w'’-]*")
FENCE = re.compile(r"^(> )?```.*?^(> )?```", re.MULTILINE | re.DOTALL)


def english_runs(markdown: str) -> list[str]:
    """Runs of five or more English words outside code: a sentence left untranslated in a Chinese text."""
    plain = CODE_SPAN.sub(" ", FENCE.sub(" ", markdown))
    return ENGLISH_RUN.findall(plain)


LECTURES_MARK = "<!-- lectures -->"
_TIME = {"en": re.compile(r"\*\*Time:\*\*\s+(\d+)\s+minutes"), "zh": re.compile(r"\*\*时长\*\*：(\d+) 分钟")}
_TABLE = {"en": ("| Lecture | Title | Time |", "{m} min", "| | **in all** | **{h} h {m} min** |"),
          "zh": ("| 讲次 | 标题 | 时长 |", "{m} 分钟", "| | **合计** | **{h} 小时 {m} 分钟** |")}


def lecture_info(source: str, lang: str) -> tuple[str, str, int | None]:
    """(number, title, minutes) of a lecture from its jupytext source, in ``lang``."""
    text = "\n".join(ln[2:] if ln.startswith("# ") else ln for ln in source.split("\n"))
    heading = next(ln for ln in text.split("\n") if ln.startswith("# "))
    title = split_heading(heading, lang)[2:]
    number, _, title = title.partition(" · ")
    time = _TIME[lang].search(text)
    return re.sub(r"\D", "", number), title, int(time.group(1)) if time else None


def lecture_table(sources: list, lang: str) -> str:
    """The syllabus's table of lectures (linked), their titles and times, in ``lang``; a lecture that states
    no time shows a dash."""
    head, each, total = _TABLE[lang]
    rows, minutes = [head, "| --- | --- | --- |"], 0
    for path in sources:
        number, title, time = lecture_info(path.read_text(encoding="utf-8"), lang)
        minutes += time or 0
        rows.append(f"| {number} | [{title}]({path.stem}.ipynb) | {each.format(m=time) if time else '—'} |")
    rows.append(total.format(h=minutes // 60, m=minutes % 60))
    return "\n".join(rows)
