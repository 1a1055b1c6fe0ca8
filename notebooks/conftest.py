"""pytest --nbval collects the executed notebooks only; notebooks/src/*.py are their jupytext sources."""
collect_ignore_glob = ["src/*", "marimo/*", "conftest.py"]
