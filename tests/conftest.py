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


@pytest.fixture
def fake_comm(monkeypatch):
    """Every widget the test makes talks through a ``FakeComm`` (tests/fakecomm.py): ``widget.comm.sent`` holds
    each message it sent, ``widget.comm.custom`` the content of its custom ones."""
    import comm
    from fakecomm import FakeComm
    monkeypatch.setattr(comm, "create_comm", FakeComm)
    return FakeComm
