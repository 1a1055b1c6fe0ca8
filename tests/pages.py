"""Reading a stored output as a front end would: the loader's script, the key it looks for, its front end."""
from __future__ import annotations

import base64
import re
import zlib

from bs4 import BeautifulSoup

LOADER = re.compile(r'\("(jl-[0-9a-f]{16})","([A-Za-z0-9+/=]+)"\);$')


def loaders(page: str) -> list:
    """The output's loader scripts (no attributes: the key and the data are in the text)."""
    return [s for s in BeautifulSoup(page, "html.parser").find_all("script") if LOADER.search(s.get_text())]


def front_end(page: str) -> tuple[str, str, str]:
    """(the key of the output's box, the CSS, the ES module) of the one loader in ``page``."""
    (script,) = loaders(page)
    assert not script.attrs, script.attrs                   # nothing a re-created script would lose
    key, z = LOADER.search(script.get_text()).groups()
    css, module = zlib.decompress(base64.b64decode(z), -15).decode("utf-8").split("\0", 1)
    return key, css, module
