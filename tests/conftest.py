import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, os.path.dirname(__file__))   # tests/seeds.py, tests/corpus.py

import pytest


@pytest.fixture(scope="session")
def ip():
    """A real IPython shell with jaxprlens loaded, driven as a user would."""
    from IPython.testing.globalipapp import get_ipython
    shell = get_ipython()
    shell.run_line_magic("load_ext", "jaxprlens")
    return shell
