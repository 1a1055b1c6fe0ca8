"""The teacher's kit's JupyterHub recipe, run: a hub on 127.0.0.1 (the ``jupyterhub_config.py`` printed in
docs/teachers/kit_grade.md, with this test's ports and folders after it), two students, each running lecture 8
with its debugger cell through the hub's proxy as JupyterLab would, and each saved notebook holding the
debugger's replay and no widget view: jaxprlens's server extension ran in every student's server.  Also measures
what each student's server and kernel hold in memory once the lecture has run."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import nbformat
import psutil
import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
HUB_JS = ROOT / "tests" / "hub"              # package.json + lock: configurable-http-proxy, the hub's proxy
PROXY = HUB_JS / "node_modules" / ".bin" / "configurable-http-proxy"
KIT = ROOT / "docs" / "teachers" / "kit_grade.md"
LECTURE = ROOT / "notebooks" / "en" / "08_debugger_and_graph.ipynb"
STUDENTS = ("ada", "grace")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
MiB = 1 << 20
KERNEL_LIMIT = 1 << 30       # the kit's c.Spawner.mem_limit = "1G": a kernel after lecture 8 must fit in it


def recipe() -> str:
    """The kit's ``jupyterhub_config.py``: the python block that starts with that name."""
    blocks = re.findall(r"```python\n(# jupyterhub_config\.py\n.*?)```", KIT.read_text(), re.S)
    assert len(blocks) == 1, "docs/teachers/kit_grade.md should hold one python block headed # jupyterhub_config.py"
    return blocks[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the hub: get SIGTERM when the test process dies by a signal that skips our finalizers (Linux)."""
    try:
        import ctypes
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def proxy_command() -> Path:
    """configurable-http-proxy from tests/hub's lock, installed with ``npm ci`` when missing or older than the
    lock; skips only when Node.js or npm is missing."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"JupyterHub's proxy (configurable-http-proxy) runs on Node.js: {' and '.join(missing)} not "
                    f"found (apt-get install nodejs npm; `make test` installs them when run as root)")
    major = int(subprocess.run(["node", "-p", "process.versions.node.split('.')[0]"], capture_output=True,
                               text=True, check=True).stdout)
    assert major >= 18, "configurable-http-proxy 5.2 needs Node.js >= 18"
    stamp = HUB_JS / "node_modules" / ".package-lock.json"
    lock = HUB_JS / "package-lock.json"
    if not PROXY.exists() or not stamp.exists() or lock.stat().st_mtime > stamp.stat().st_mtime:
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=HUB_JS, check=True)
    return PROXY


class Hub:
    """``jupyterhub`` in a temp dir with the kit's config, a free port for the proxy, the hub and the proxy's
    API, and an admin service token; its servers and proxy are stopped with it."""

    def __init__(self, base: Path, proxy: Path):
        self.base, self.proxy = base, proxy
        self.port, self.hub_port, self.api_port = free_port(), free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.admin = secrets.token_hex(32)
        self.log = base / "jupyterhub.log"
        self.proc = None
        self.children: set[int] = set()

    def config(self) -> str:
        # the spawner passes on no variable of the hub's but these: this test's renderer and import path
        env = {"JAXPRLENS_RENDERER": os.environ["JAXPRLENS_RENDERER"]} if "JAXPRLENS_RENDERER" in os.environ else {}
        if os.environ.get("PYTHONPATH"):     # PYTHONPATH=src: the tree under test, not the venv's install
            paths = os.environ["PYTHONPATH"].split(os.pathsep)
            env["PYTHONPATH"] = os.pathsep.join(str(Path(p).resolve()) for p in paths)
        tail = f"""
# tests/test_hub.py: its ports, folders and users, an admin token for the test
c.JupyterHub.bind_url = "{self.url}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{self.hub_port}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{self.api_port}"
c.ConfigurableHTTPProxy.command = [{str(self.proxy)!r}]
c.ConfigurableHTTPProxy.pid_file = {str(self.base / "proxy.pid")!r}
c.JupyterHub.db_url = "sqlite:///{self.base / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(self.base / "cookie_secret")!r}
c.JupyterHub.pid_file = {str(self.base / "jupyterhub.pid")!r}
c.SimpleLocalProcessSpawner.home_dir_template = {str(self.base / "home" / "{username}")!r}
c.Authenticator.allowed_users = {set(STUDENTS)!r}
c.Spawner.environment.update({env!r})
c.JupyterHub.services = [{{"name": "test-admin", "api_token": {self.admin!r}}}]
c.JupyterHub.load_roles = [{{"name": "test-admin", "services": ["test-admin"],
                            "scopes": ["admin:users", "admin:servers", "tokens"]}}]
"""
        if os.geteuid() == 0:       # CI runs as root; a Jupyter server refuses root unless told
            tail += 'c.Spawner.args = ["--allow-root"]\n'
        return recipe() + tail

    def env(self) -> dict:
        env = dict(os.environ)
        # the spawner keeps PATH: the kernel spec's "python" and jupyterhub-singleuser are this venv's
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        env["COURSE_PASSWORD"] = secrets.token_hex(8)     # the recipe's shared password (the test uses tokens)
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_PATH"):
            env.pop(name, None)
        return env

    def start(self, timeout: float = 120.0) -> Hub:
        cfg = self.base / "jupyterhub_config.py"
        cfg.write_text(self.config())
        self.proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(cfg)], cwd=self.base,
                                     env=self.env(), stdout=self.log.open("wb"), stderr=subprocess.STDOUT,
                                     start_new_session=True, preexec_fn=_die_with_parent)
        self.wait(lambda: self.api("/hub/api/", quiet=True) is not None, timeout, "the hub's API")
        return self

    def wait(self, ready, timeout: float, what: str):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyterhub exited with {self.proc.returncode}:\n{self.log_text()}")
            value = ready()
            if value:
                return value
            time.sleep(0.3)
        raise RuntimeError(f"{what} not ready in {timeout:.0f} s:\n{self.log_text()}")

    def api(self, path: str, method: str = "GET", body=None, token: str | None = None, quiet: bool = False):
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"token {token or self.admin}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                data = r.read()
        except (urllib.error.URLError, ConnectionError):
            if quiet:
                return None
            raise
        return json.loads(data) if data else {}

    def server_pid(self, user: str) -> int:
        return self.api(f"/hub/api/users/{user}")["servers"][""]["state"]["pid"]

    def stop(self) -> None:
        """SIGTERM the hub (it stops the proxy and the servers it started), then end whatever it left."""
        if self.proc is None:
            return
        try:
            self.children |= {p.pid for p in psutil.Process(self.proc.pid).children(recursive=True)}
        except psutil.Error:
            pass
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        for pid in self.children:
            try:
                left = psutil.Process(pid)
                left.kill()
                left.wait(timeout=10)
            except psutil.Error:
                pass

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")[-6000:] if self.log.exists() else ""


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    proxy = proxy_command()
    if importlib.util.find_spec("jupyterhub") is None:
        pytest.skip("JupyterHub is in the dev extras: pip install -c constraints.txt -e '.[dev]' (make venv)")
    running = Hub(tmp_path_factory.mktemp("hub"), proxy)
    try:
        yield running.start()
    finally:
        running.stop()


class Kernel:
    """A kernel's channels over the single-user server's websocket, as JupyterLab talks to it."""

    def __init__(self, ws_url: str, token: str):
        import websocket
        self.ws = websocket.create_connection(ws_url, header=[f"Authorization: token {token}"], timeout=600)
        self.session = uuid.uuid4().hex

    def execute(self, code: str, cell_id: str) -> list:
        """Run ``code`` as the notebook cell ``cell_id`` (JupyterLab names it in the request's metadata); the
        cell's outputs as nbformat outputs."""
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": self.session,
                       "username": "", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {"cellId": cell_id}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True}}))
        outputs, idle, replied = [], False, False
        while not (idle and replied):
            msg = json.loads(self.ws.recv())
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = msg["header"]["msg_type"]
            if msg["channel"] == "shell" and kind == "execute_reply":
                replied = True
            elif kind == "status":
                idle = msg["content"]["execution_state"] == "idle"
            elif kind == "clear_output":
                outputs.clear()
            elif kind == "update_display_data":
                shown = msg["content"].get("transient", {}).get("display_id")
                for out in outputs:
                    if out.get("transient_display_id") == shown:
                        out["data"], out["metadata"] = msg["content"]["data"], msg["content"]["metadata"]
            elif kind in ("stream", "display_data", "execute_result", "error"):
                out = nbformat.v4.output_from_msg(msg)
                shown = msg["content"].get("transient", {}).get("display_id")
                if shown:
                    out["transient_display_id"] = shown
                outputs.append(out)
        for out in outputs:
            out.pop("transient_display_id", None)
        return outputs

    def close(self):
        self.ws.close()


def student_token(hub: Hub, user: str) -> str:
    return hub.api(f"/hub/api/users/{user}/tokens", "POST", {"note": "tests/test_hub.py"})["token"]


def start_server(hub: Hub, user: str, token: str) -> str:
    """Start ``user``'s server with their own token; its URL through the proxy once it answers."""
    hub.api(f"/hub/api/users/{user}/server", "POST", {}, token=token)
    hub.wait(lambda: (hub.api(f"/hub/api/users/{user}", token=token)["servers"].get("") or {}).get("ready"),
             300, f"{user}'s server")
    base = f"/user/{user}"
    hub.wait(lambda: hub.api(f"{base}/api/status", token=token, quiet=True), 60, f"{user}'s server via the proxy")
    return base


def run_lecture(hub: Hub, base: str, token: str, nb) -> None:
    """Hand the lecture out (its outputs cleared), run every code cell in a kernel of the student's server as
    JupyterLab's Run All would, and save the notebook with the contents API."""
    name = LECTURE.name
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    hub.api(f"{base}/api/contents/{name}", "PUT", {"type": "notebook", "format": "json", "content": nb}, token)
    session = hub.api(f"{base}/api/sessions", "POST", {"path": name, "name": name, "type": "notebook",
                                                        "kernel": {"name": "python3"}}, token)
    kernel = Kernel(f"ws://127.0.0.1:{hub.port}{base}/api/kernels/{session['kernel']['id']}/channels", token)
    try:
        for n, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
            cell.outputs = kernel.execute(cell.source, cell.id)
            cell.execution_count = n + 1
    finally:
        kernel.close()


def live_widgets(cell) -> list:
    return [o for o in cell.outputs if WIDGET_VIEW in o.get("data", {})]


def replays(cell) -> list:
    return [o for o in cell.outputs if "jl-dbg-replay" in o.get("data", {}).get("text/html", "")]


def memory(pid: int) -> dict:
    """The student's server (``pid``) and its kernels: RSS and USS (what only that process holds), MiB."""
    server = psutil.Process(pid)
    kernels = [p for p in server.children(recursive=True) if "ipykernel" in " ".join(p.cmdline())]
    full = {p: p.memory_full_info() for p in [server, *kernels]}
    return {"server_rss": full[server].rss / MiB, "server_uss": full[server].uss / MiB,
            "kernel_rss": [full[k].rss / MiB for k in kernels], "kernel_uss": [full[k].uss / MiB for k in kernels],
            "kernel_cpu_s": [sum(k.cpu_times()[:2]) for k in kernels]}


def test_the_kit_recipe_is_a_hub_config():
    cfg = recipe()
    compile(cfg, "jupyterhub_config.py", "exec")
    for setting in ('authenticator_class = "shared-password"', 'spawner_class = "simple"', "c.Spawner.cmd",
                    '"JAX_PLATFORMS": "cpu"', "c.ConfigurableHTTPProxy.command"):
        assert setting in cfg


def test_two_students_run_lecture_8_on_a_hub_and_save_the_replay(hub, record_property):
    tokens = {user: student_token(hub, user) for user in STUDENTS}
    bases = {user: start_server(hub, user, tokens[user]) for user in STUDENTS}   # both servers up at once
    assert len({hub.server_pid(user) for user in STUDENTS}) == 2
    figures = {}
    for user in STUDENTS:
        nb = nbformat.read(str(LECTURE), as_version=4)
        run_lecture(hub, bases[user], tokens[user], nb)
        errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
        assert not errors, f"{user}: {errors[0]['ename']}: {errors[0]['evalue']}"
        debug = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%jaxpr --debug")]
        assert len(debug) == 1
        # live, the debugger cell shows the replay and the live widget (the cell is named, as JupyterLab names it)
        assert len(replays(debug[0])) == 1 and len(live_widgets(debug[0])) == 1
        assert live_widgets(debug[0])[0]["metadata"]["jaxprlens"] == {"live": True, "debugger": True}
        saved = hub.api(f"{bases[user]}/api/contents/{LECTURE.name}", "PUT",
                        {"type": "notebook", "format": "json", "content": nb}, tokens[user])
        assert saved["type"] == "notebook"
        back = nbformat.from_dict(hub.api(f"{bases[user]}/api/contents/{LECTURE.name}?content=1",
                                          token=tokens[user])["content"])
        on_disk = nbformat.read(str(hub.base / "home" / user / LECTURE.name), as_version=4)
        for stored in (back, on_disk):
            cell = next(c for c in stored.cells if c.id == debug[0].id)
            assert len(replays(cell)) == 1, f"{user}: the saved debugger cell lost its replay"
            assert not live_widgets(cell), f"{user}: the saved debugger cell kept the live widget view"
            assert not any(live_widgets(c) for c in stored.cells if c.cell_type == "code")
        figures[user] = memory(hub.server_pid(user))
    for user, fig in figures.items():
        assert len(fig["kernel_rss"]) == 1, f"{user}: one kernel expected, found {len(fig['kernel_rss'])}"
        assert fig["kernel_rss"][0] * MiB < KERNEL_LIMIT, f"{user}'s kernel holds {fig['kernel_rss'][0]:.0f} MiB"
        line = (f"{user}: server RSS {fig['server_rss']:.0f} MiB (USS {fig['server_uss']:.0f}), kernel after "
                f"lecture 8 RSS {fig['kernel_rss'][0]:.0f} MiB (USS {fig['kernel_uss'][0]:.0f}), kernel CPU "
                f"{fig['kernel_cpu_s'][0]:.1f} s")
        print(line)
        record_property(f"memory_{user}", line)
    hub_proc = psutil.Process(hub.proc.pid)
    proxy = [p for p in hub_proc.children() if "configurable-http-proxy" in " ".join(p.cmdline())]
    assert len(proxy) == 1
    line = (f"the hub RSS {hub_proc.memory_info().rss / MiB:.0f} MiB, its proxy (Node.js) RSS "
            f"{proxy[0].memory_info().rss / MiB:.0f} MiB")
    print(line)
    record_property("memory_hub", line)
