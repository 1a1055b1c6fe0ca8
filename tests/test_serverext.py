"""The server extension (serverext.py): the save hook stores a live debugger as its replay, and touches
nothing else in a notebook."""
import json

import pytest
from debugging import debugger

from jaxprlens.serverext import WIDGET_VIEW, strip_live_widgets

pytestmark = pytest.mark.usefixtures("fake_comm")     # every widget here records what it sends (conftest.py)


def test_the_server_extension_names_its_process_for_its_kernels(monkeypatch):
    import os
    from types import SimpleNamespace
    ioloop = pytest.importorskip("tornado.ioloop")
    from jaxprlens import serverext
    monkeypatch.delenv(serverext.SERVER_PID, raising=False)
    hooked = []
    monkeypatch.setattr(serverext, "_hook", hooked.append)
    monkeypatch.setattr(ioloop.IOLoop, "current", lambda: SimpleNamespace(add_callback=lambda *a: None))
    app = SimpleNamespace(log=SimpleNamespace(info=lambda *a: None))
    serverext._load_jupyter_server_extension(app)
    assert os.environ[serverext.SERVER_PID] == str(os.getpid()) and hooked == [app]


def test_saving_through_jupyter_server_drops_only_the_live_widget_output(tmp_path):
    """The server extension's hook, on the contents manager in use (jupytext replaces it after load)."""
    import asyncio
    import concurrent.futures
    import logging
    from types import SimpleNamespace

    pytest.importorskip("jupyter_server", reason="the save hook runs inside a Jupyter server (make test has one)")
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    from jaxprlens import serverext

    app = SimpleNamespace(contents_manager=AsyncLargeFileManager(root_dir=str(tmp_path)), log=logging.getLogger())
    serverext._hook(app)
    serverext._hook(app)                    # once the server runs: the same manager is not hooked twice
    assert app.contents_manager._pre_save_hooks.count(serverext.pre_save) == 1
    d = debugger("func1")
    data, metadata = d._repr_mimebundle_()
    live, lmeta = d.widget_bundle()
    outputs = [{"output_type": "display_data", "data": data, "metadata": metadata},
               {"output_type": "display_data", "data": live, "metadata": lmeta},
               {"output_type": "display_data", "data": {WIDGET_VIEW: {"model_id": "abc", "version_major": 2,
                                                                      "version_minor": 1}, "text/plain": "w"},
                "metadata": {}}]
    nb = {"cells": [{"cell_type": "code", "id": "c0", "source": "", "metadata": {}, "execution_count": 1,
                     "outputs": outputs}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    save = app.contents_manager.save({"type": "notebook", "content": nb}, "saved.ipynb")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:    # its own loop: another test may have one running
        pool.submit(asyncio.run, save).result()
    saved = json.loads((tmp_path / "saved.ipynb").read_text())["cells"][0]["outputs"]
    assert len(saved) == 2 and sorted(saved[0]["data"]) == ["text/html", "text/plain"]
    assert "jl-dbg-replay" in "".join(saved[0]["data"]["text/html"])
    assert WIDGET_VIEW in saved[1]["data"]                   # another library's widget is left alone


def test_the_server_extension_hooks_the_contents_manager_in_use_once_the_server_runs(tmp_path):
    """JupyterHub's single-user extension runs the loop while extensions load (its hub version check), so the
    load-time callback can fire before jupytext, loaded after us, replaces the contents manager: Jupyter
    Server's start hook, called after every extension has loaded, hooks the one in use."""
    import asyncio
    import concurrent.futures
    import logging
    from types import SimpleNamespace

    pytest.importorskip("jupyter_server", reason="the save hook runs inside a Jupyter server (make test has one)")
    from jupyter_server.extension.manager import ExtensionPoint
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    from jaxprlens import serverext

    app = SimpleNamespace(contents_manager=AsyncLargeFileManager(root_dir=str(tmp_path)), log=logging.getLogger())
    serverext._hook(app)                                    # at load (and the early callback)
    loaded = app.contents_manager
    app.contents_manager = AsyncLargeFileManager(root_dir=str(tmp_path))   # jupytext's, loaded after us
    assert serverext.pre_save not in app.contents_manager._pre_save_hooks
    starter = ExtensionPoint(metadata={"module": "jaxprlens.serverext"})._get_starter()
    assert starter is serverext._start_jupyter_server_extension   # Jupyter Server finds our start hook
    with concurrent.futures.ThreadPoolExecutor(1) as pool:    # its own loop: another test may have one running
        pool.submit(asyncio.run, starter(app)).result()
    assert app.contents_manager._pre_save_hooks.count(serverext.pre_save) == 1
    assert loaded._pre_save_hooks.count(serverext.pre_save) == 1


def test_save_hook_survives_malformed_notebooks_and_touches_only_its_outputs():
    from jaxprlens.serverext import pre_save
    live = {"output_type": "display_data", "metadata": {"jaxprlens": {"live": True}},
            "data": {WIDGET_VIEW: {"model_id": "m"}, "text/html": "<div>replay</div>", "text/plain": "d"}}
    foreign = [
        {"output_type": "display_data", "metadata": None, "data": {WIDGET_VIEW: {}}},       # metadata not a dict
        {"output_type": "display_data", "metadata": {"jaxprlens": "live"}, "data": {WIDGET_VIEW: {},
                                                                                   "text/html": "x"}},
        {"output_type": "display_data", "metadata": {"jaxprlens": {"live": True}}, "data": ["not", "a", "dict"]},
        {"output_type": "display_data", "metadata": {"jaxprlens": {"live": 1}}, "data": {WIDGET_VIEW: {},
                                                                                        "text/html": "y"}},
        "an output that is a string", None, 42,
        {"output_type": "stream", "name": "stdout", "text": "hi"},
    ]
    nb = {"cells": [
        {"cell_type": "code", "outputs": list(foreign[:4]) + [json.loads(json.dumps(live))] + foreign[4:]},
        {"cell_type": "code", "outputs": "not a list"},
        "a cell that is a string",
        {"cell_type": "markdown", "source": "# x", "outputs": [json.loads(json.dumps(live))]},
        {"cell_type": "code", "outputs": [json.loads(json.dumps(live))]},
        None]}
    before = json.dumps(nb, sort_keys=True)
    model = {"type": "notebook", "content": nb}
    pre_save(model)
    outs = nb["cells"][0]["outputs"]
    assert WIDGET_VIEW not in outs[4]["data"] and WIDGET_VIEW not in nb["cells"][4]["outputs"][0]["data"]
    # everything else byte-identical: put the two stripped views back and compare with what came in
    outs[4]["data"][WIDGET_VIEW] = {"model_id": "m"}
    nb["cells"][4]["outputs"][0]["data"][WIDGET_VIEW] = {"model_id": "m"}
    assert json.dumps(nb, sort_keys=True) == before
    for bad in (None, 3, {"type": "notebook", "content": None}, {"type": "notebook", "content": {"cells": 7}},
                {"type": "notebook", "content": {"cells": [{"cell_type": "code", "outputs": [{"metadata": 5}]}]}},
                {"type": "file", "content": "text"}):
        pre_save(bad)                       # never raises
    assert strip_live_widgets([]) == 0 and strip_live_widgets({"cells": None}) == 0
