"""present/usage.py: the magics' --help in the reader's language (English exactly as argparse writes it, Chinese
from the catalogue, wrapped by display width) and argparse's complaints said again."""
from __future__ import annotations

import inspect

import pytest

from jaxprlens.magic import JaxprMagics
from jaxprlens.present.i18n import TEXT, width
from jaxprlens.present.usage import help_text, option_error, option_help, wrap

PARSERS = {"jaxpr": JaxprMagics.jaxpr.parser, "jaxpr_config": JaxprMagics.jaxpr_config.parser}


@pytest.fixture(autouse=True)
def columns(monkeypatch):
    """argparse wraps help to the terminal ($COLUMNS - 2): the same width on every machine."""
    monkeypatch.setenv("COLUMNS", "200")


@pytest.mark.parametrize("magic", sorted(PARSERS))
def test_the_english_help_is_argparse_s_own(magic):
    parser = PARSERS[magic]
    assert help_text(parser, "en") == parser.format_help()        # what %jaxpr? shows, the docstring included


@pytest.mark.parametrize("magic", sorted(PARSERS))
def test_every_option_has_its_words_in_both_languages(magic):
    """Each option's help is the catalogue's ``help.<magic>.<option>`` (argparse's English too; a default it names
    is the option's own, filled in), and the English description the catalogue keeps for a translator is the
    magic's docstring, word for word."""
    parser = PARSERS[magic]
    actions = [a for a in parser._actions if a.option_strings]
    assert actions and all(a.help == option_help(f"{magic}.{a.dest}", default=a.default) for a in actions)
    assert all(TEXT["zh"][f"help.{magic}.{a.dest}"] for a in actions)
    assert TEXT["en"][f"help.{magic}"] == inspect.cleandoc(parser.description)
    assert option_help("jaxpr.lang").endswith("(default: %%jaxpr_config --lang, else $JAXPRLENS_LANG, else en)")


def test_the_chinese_help_of_jaxpr_config():
    assert help_text(PARSERS["jaxpr_config"], "zh") == (
        "::\n\n  %jaxpr_config [-h] [--lang LANG] [--graph-png {on,off}] [--reset]\n\n"
        "``%%jaxpr`` 在整个内核中生效的设置；不带选项时，打印这些设置以及每项的来源。\n\n用法：\n\n"
        "    %jaxpr_config                  # 语言：zh（由 %jaxpr_config 设置），以及其余设置\n"
        "    %jaxpr_config --lang zh        # 从现在起每个视图都用中文；单元格的 --lang 仍然优先\n"
        "    %jaxpr_config --graph-png off  # 数据流图不附带 PNG 副本（用于 LaTeX/PDF）：笔记本更轻\n"
        "    %jaxpr_config --reset          # 回到 $JAXPRLENS_LANG 和 $JAXPRLENS_GRAPH_PNG，否则用默认值\n\n"
        "环境变量 ``JAXPRLENS_LANG``（``en`` 或 ``zh``）和 ``JAXPRLENS_GRAPH_PNG``（``1`` 或 ``0``）在任何\n"
        "``%jaxpr_config`` 之前设定它们。\n\n"
        "选项：\n"
        "  -h, --help            用 --lang 给出的语言（否则用内核的语言）显示本帮助，然后停止\n"
        "  --lang LANG           从现在起每个视图的语言：en 或 zh\n"
        "  --graph-png <{on,off}>\n"
        "                        on：每个数据流图的输出也附带 PNG 图片，供 LaTeX 和 PDF 导出显示；off：笔记本更轻\n"
        "  --reset               忘掉这里做的设置（回到 $JAXPRLENS_LANG、$JAXPRLENS_GRAPH_PNG 或默认值）\n")


def test_the_chinese_help_of_jaxpr():
    text = help_text(PARSERS["jaxpr"], "zh")
    lines = text.splitlines()
    assert lines[2].startswith("  %jaxpr [-h] [--text] [--table] [--graph]")       # the usage line, as in English
    assert "trace 一次调用并显示它的 jaxpr：带注释的表格、数据流图、调试器或计时运行。" in lines    # the description
    options = lines[lines.index("选项：") + 1:]
    for line in ["  -h, --help            用本单元格的语言（--lang，否则 %jaxpr_config --lang）显示本帮助，然后停止",
                 "  --text                按 JAX 打印的样子显示 jaxpr",
                 "  --cost <[{flops,bytes}]>",
                 "                        在表格中加上 FLOPs/字节数的开销列；"
                 "与 --graph 一起时，按每个节点在估算 FLOPs 中的"
                 "份额着色（--cost bytes：按搬运字节数中的份额）",
                 "  --lang LANG           本单元格视图的语言：en 或 zh"
                 "（默认：%jaxpr_config --lang，否则 $JAXPRLENS_LANG，"
                 "否则 en）",
                 "  --batched             与 --transform vmap 一起：所写的实参已经是一批；沿它们的 --in-axes 映射（与 "
                 "jax.vmap(f, in_axes) 作用于 *args 相同）"]:
        assert line in options
    english = [a.help for a in PARSERS["jaxpr"]._actions if a.help]
    assert [h for h in english if h.replace("%%", "%") in text] == []          # no English help left
    assert "options:" not in lines and "Usage::" not in lines


def test_a_narrow_terminal_wraps_chinese_by_its_width(monkeypatch):
    """At 60 columns every option line fits 58 (a CJK character takes two), as argparse fits English ones."""
    monkeypatch.setenv("COLUMNS", "60")
    lines = help_text(PARSERS["jaxpr"], "zh").splitlines()
    options = lines[lines.index("选项：") + 1:]
    assert len(options) > 40 and max(width(line) for line in options) <= 58
    assert [line for line in options if line.strip()[:1] in "，。、；：）"] == []
    at = options.index("  --profile             在设备上为每个顶层方程计时（与")
    assert options[at + 1:at + 3] == ["                        --fusion 一起：由 profiler 为每个",
                                      "                        编译后的计算内核计时）"]


@pytest.mark.parametrize("cols, lines", [
    (20, ["与 --transform vmap", "一起：所写的实参已经", "是一批；沿它们的", "--in-axes 映射（与",
          "jax.vmap(f, in_axes)", "作用于 *args 相同）"]),
    # the （ goes with what it opens
    (74, ["与 --transform vmap 一起：所写的实参已经是一批；沿它们的 --in-axes 映射",
          "（与 jax.vmap(f, in_axes) 作用于 *args 相同）"]),
])
def test_wrap(cols, lines):
    text = TEXT["zh"]["help.jaxpr.batched"]
    assert wrap(text, cols) == lines and "".join(lines).replace(" ", "") == text.replace(" ", "")
    assert wrap("一二三四，五", 8) == ["一二三", "四，五"]       # a closing mark does not start a line
    assert wrap("  a  b ", 5) == ["a b"] and wrap("", 5) == [] and wrap("abcdefgh", 3) == ["abcdefgh"]
    assert wrap("aaa bbb ccc", 8, first=3) == ["aaa", "bbb ccc"]             # a first line kept shorter
    assert wrap("一二三四五六七", 6, first=2) == ["一", "二三四", "五六七"]


@pytest.mark.parametrize("lang, said", [
    ("en", "unrecognized arguments: --rest\ndid you mean --reset?\n"
           "valid options: --graph-png --help --lang --reset -h  (see %jaxpr_config --help)"),
    ("zh", "无法识别的选项：--rest\n你是不是想写 --reset？\n"
           "可用的选项：--graph-png --help --lang --reset -h（%jaxpr_config --help 查看帮助）"),
])
def test_a_complaint_names_the_magic_whose_help_to_read(lang, said):
    assert option_error("unrecognized arguments: --rest", PARSERS["jaxpr_config"], lang, "%jaxpr_config") == said
