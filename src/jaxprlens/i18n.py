"""Words shown to the reader, in English and Chinese (``--lang zh``, the seed article's audience)."""
from __future__ import annotations

LANGS = ("en", "zh")

TEXT = {
    "en": {
        "eqn": "#", "outputs": "outputs", "primitive": "primitive", "params": "params",
        "inputs": "inputs", "source": "source", "explanation": "what it does", "roles": "operand roles",
        "signature": "signature", "inputs_title": "input", "constants": "hoisted constants",
        "results": "result", "cost": "cost", "line": "line", "cell": "cell",
        "literal": "literal", "constvar": "hoisted constant", "no_eqns": "(no equations)",
        "effects": "effects", "equations": "equations", "in_all": "in all",
        "sub_inputs": "binders", "bound_from": "bound from", "total": "total",
        "intensity": "intensity", "n/a": "n/a",
    },
    "zh": {
        "eqn": "#", "outputs": "输出", "primitive": "原语", "params": "参数",
        "inputs": "输入", "source": "源码", "explanation": "含义", "roles": "操作数角色",
        "signature": "签名", "inputs_title": "输入", "constants": "提升的常量",
        "results": "结果", "cost": "开销", "line": "行", "cell": "单元格",
        "literal": "字面量", "constvar": "提升的常量", "no_eqns": "（没有方程）",
        "effects": "副作用", "equations": "个方程", "in_all": "共计",
        "sub_inputs": "绑定变量", "bound_from": "来自", "total": "合计",
        "intensity": "算术强度", "n/a": "无",
    },
}

# role key -> (English singular, English plural, Chinese)
ROLE_WORDS = {
    "index": ("index", "indices", "分支索引"),
    "operands": ("operand", "operands", "分支操作数"),
    "cond_consts": ("cond const", "cond consts", "cond 常量"),
    "body_consts": ("body const", "body consts", "body 常量"),
    "carry": ("carry", "carry", "carry"),
    "consts": ("const", "consts", "常量"),
    "xs": ("xs", "xs", "xs 数组"),
    "args": ("arg", "args", "参数"),
    "operand": ("operand", "operands", "操作数"),
}


def t(key: str, lang: str = "en") -> str:
    return TEXT.get(lang, TEXT["en"]).get(key, TEXT["en"].get(key, key))


def role_word(key: str, n: int = 1, lang: str = "en") -> str:
    one, many, zh = ROLE_WORDS.get(key, (key, key, key))
    if lang == "zh":
        return zh
    return one if n == 1 else many


def role_summary(roles, lang: str = "en") -> str:
    """``0 cond consts, 2 body consts, 3 carry`` (en) / ``0 个 cond 常量、2 个 body 常量、3 个 carry`` (zh)."""
    if lang == "zh":
        parts = [f"{n} 个{role_word(k, n, 'zh')}" for k, n in roles.groups]
        text = "、".join(parts)
    else:
        parts = [f"{n} {role_word(k, n)}" for k, n in roles.groups]
        text = ", ".join(parts)
    extra = detail_text(roles.detail, lang)
    return f"{text}; {extra}" if extra else text


def detail_text(detail: dict, lang: str = "en") -> str:
    bits = []
    for key, value in detail.items():
        if key == "name":
            bits.append(("调用 " if lang == "zh" else "calls ") + str(value))
        elif key == "branches":
            if value == 2:
                bits.append("分支 0 = false，分支 1 = true" if lang == "zh"
                            else "branch 0 = false, branch 1 = true")
            else:
                bits.append(f"{value} 个分支，索引被钳制到 [0, {value - 1}]" if lang == "zh"
                            else f"{value} branches, index clamped to [0, {value - 1}]")
        else:
            bits.append(f"{key}={value}")
    return "; ".join(bits)
