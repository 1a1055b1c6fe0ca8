"""IPython glue: the ``%%jaxpr`` / ``%jaxpr`` magics parse options, run the cell, trace its last call
and return a view object.  All IPython code of jaxprlens lives here."""
from __future__ import annotations

import ast
import os
import re

import jax
from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from . import model
from .i18n import language, resolve, set_default_lang, settings, t

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))

# Options that take a value (used to find where the line magic's call expression starts).
_VALUED = {"--static-argnums", "--lang", "--device", "--depth", "--max-nodes", "--path", "--transform",
           "--argnums", "--in-axes", "--repeat"}

_TRACER_FIX = {
    "TracerBoolConversionError":
        "Python `if`/`while`/`and`/`or` on a traced value runs at trace time, when the value is unknown; "
        "use jax.lax.cond / jax.lax.select for branches, jax.lax.while_loop / fori_loop for loops, "
        "or make the argument static with --static-argnums N.",
    "ConcretizationTypeError":
        "a traced value was used where Python needs a concrete one (a shape, a loop bound, an `if`); "
        "use jax.lax.cond / jax.lax.while_loop for control flow, or make the argument static with "
        "--static-argnums N.",
    "TracerIntegerConversionError":
        "a traced value was used as a Python int (e.g. an index or range bound); use jax.lax.dynamic_slice "
        "or jax.lax.fori_loop, or make the argument static with --static-argnums N.",
    "TracerArrayConversionError":
        "a traced value was converted to a NumPy array; use jax.numpy (jnp) instead of numpy (np) inside "
        "the traced function.",
}


def _split_line(line: str) -> tuple[str, str]:
    """Split a line-magic line into (options, call expression)."""
    pos, expect_value = 0, False
    for m in re.finditer(r"\S+", line):
        tok = m.group()
        if expect_value:
            expect_value = False
            continue
        if tok.startswith("-"):
            expect_value = tok in _VALUED
            continue
        pos = m.start()
        return line[:pos], line[pos:]
    return line, ""


def _static_argnums(text: str | None) -> tuple:
    if not text:
        return ()
    try:
        return tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise UsageError(f"--static-argnums takes comma-separated integers such as 0,1; got {text!r}") from None


def _user_tb(tb):
    """Drop our own frames (and JAX's) from the front of a traceback so the user sees their code."""
    while tb is not None and (tb.tb_frame.f_code.co_filename.startswith(_PKG_DIR)
                              or os.sep + "jax" + os.sep in tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return tb


def _cell_location(exc, filename: str) -> str:
    tb, found = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = tb
        tb = tb.tb_next
    if found is None:
        return ""
    import linecache
    text = linecache.getline(filename, found.tb_lineno).strip()
    return f" (cell line {found.tb_lineno}: {text})"


@magics_class
class JaxprMagics(Magics):
    """Holds the ``jaxpr`` magic."""

    @magic_arguments()
    @argument("--text", action="store_true", help="show the jaxpr as JAX prints it")
    @argument("--table", action="store_true", help="show the annotated table (the default)")
    @argument("--graph", action="store_true", help="show the dataflow graph (Graphviz SVG)")
    @argument("--debug", action="store_true", help="open the step-by-step debugger widget")
    @argument("--run", action="store_true", help="run the program compiled on the device, with timings")
    @argument("--profile", action="store_true", help="time each top-level equation on the device")
    @argument("--cost", action="store_true", help="add the FLOPs/bytes cost column to the table")
    @argument("--devices", action="store_true", help="list the devices JAX can use and stop")
    @argument("--device", default=None, help="device to run on: cpu, gpu, gpu:1, tpu:0")
    @argument("--repeat", type=int, default=20, help="timed repeats for --run/--profile (default 20)")
    @argument("--static-argnums", default=None, help="positions of static arguments, e.g. 0,1")
    @argument("--lang", default=None, help="language of this cell's views: en or zh (default: %%jaxpr_config "
                                           "--lang, else $JAXPRLENS_LANG, else en)")
    @argument("--depth", type=int, default=None, help="graph: unfold sub-jaxprs up to this depth")
    @argument("--max-nodes", type=int, default=None, help="graph: fold sub-jaxprs bigger than this")
    @argument("--path", default=None, help="graph: show only this nested path, e.g. 2/body")
    @argument("--transform", default=None,
              help="show the jaxpr of a transformed function: grad, jvp, vjp, vmap, linearize, ...")
    @argument("--argnums", default=None, help="argnums for --transform, e.g. 0 or 0,1")
    @argument("--in-axes", default=None, help="in_axes for --transform vmap, e.g. 0,None")
    @argument("--compare", action="store_true", help="with --transform: original and transformed side by side")
    @argument("--lower", action="store_true", help="show the StableHLO beside the jaxpr")
    @argument("--compiled", action="store_true", help="show the optimized HLO after XLA")
    @line_cell_magic
    def jaxpr(self, line: str = "", cell: str | None = None):
        """Trace a call and show its jaxpr: an annotated table, a graph, a debugger or a timed run.

        Usage::

            %%jaxpr [options]
            <ordinary cell code; its LAST statement must be a call such as f(x, y)>

            %jaxpr [options] f(x, y)
            %jaxpr --devices

        The cell runs as usual (its definitions stay in the namespace); its last call is traced
        with ``jax.make_jaxpr`` and the view is returned (stored in the notebook and in ``_``).

        Example::

            %load_ext jaxprlens

            %%jaxpr --lang en
            import jax.numpy as jnp
            def func1(first, second):
                temp = first + jnp.sin(second) * 3.
                return jnp.sum(temp)
            func1(jnp.zeros(8), jnp.ones(8))
        """
        if cell is None:
            opts_text, call_text = _split_line(line)
        else:
            opts_text, call_text = line, None
        args = self._parse(opts_text)
        try:
            args.lang = resolve(args.lang)      # the kernel-wide default unless this cell says otherwise
        except ValueError as e:
            raise UsageError(str(e)) from None
        if args.devices:
            from .runner import devices_view
            return devices_view(args.lang)
        self._check_combinations(args)
        if cell is None and not call_text.strip():
            raise UsageError("give a call to trace, e.g. `%jaxpr f(x, y)`, or use `%%jaxpr` on a cell "
                             "whose last line is the call")
        source = cell if cell is not None else call_text
        program = self._trace_source(source, args)
        if program is None:
            return None
        return self._view(program, args)

    @magic_arguments()
    @argument("--lang", default=None, help="language of every view from now on: en or zh")
    @argument("--reset", action="store_true", help="forget settings made here ($JAXPRLENS_LANG or en again)")
    @line_magic
    def jaxpr_config(self, line: str = ""):
        """Kernel-wide settings of ``%%jaxpr``; with no option, print them and where each comes from.

        Usage::

            %jaxpr_config                  # language: zh (set by %jaxpr_config)
            %jaxpr_config --lang zh        # every view in Chinese from now on; a cell's --lang still wins
            %jaxpr_config --reset          # back to $JAXPRLENS_LANG, else English

        The environment variable ``JAXPRLENS_LANG`` (``en`` or ``zh``) sets the language before any
        ``%jaxpr_config``.
        """
        args = parse_argstring(self.jaxpr_config, line)
        try:
            if args.reset:
                set_default_lang(None)
            if args.lang is not None:
                set_default_lang(args.lang)
            lang, origin = settings()["lang"]
        except ValueError as e:
            raise UsageError(str(e)) from None
        if args.lang is None and not args.reset:
            print(t("config_lang", lang, value=lang, origin=t(f"origin_{origin}", lang)))

    # ------------------------------------------------------------------ helpers
    def _parse(self, opts_text: str):
        try:
            return parse_argstring(self.jaxpr, opts_text)
        except UsageError as e:
            valid = sorted(a for action in self.jaxpr.parser._actions for a in action.option_strings)
            raise UsageError(f"{e}\nvalid options: {' '.join(valid)}  (see %%jaxpr? for help)") from None

    @staticmethod
    def _check_combinations(args):
        """Options that would otherwise be ignored in silence: say so before the cell runs."""
        if not args.transform:
            given = [flag for flag, value in (("--compare", args.compare), ("--argnums", args.argnums),
                                              ("--in-axes", args.in_axes)) if value]
            if given:
                raise UsageError(f"{' '.join(given)} only work{'s' if len(given) == 1 else ''} with "
                                 "--transform, e.g. `%%jaxpr --transform grad --compare`")
        if args.device is not None:
            from .runner import resolve_device
            try:
                resolve_device(args.device)
            except ValueError as e:
                raise UsageError(str(e)) from None

    def _trace_source(self, source: str, args):
        shell = self.shell
        static = _static_argnums(args.static_argnums)
        code = shell.transform_cell(source) if hasattr(shell, "transform_cell") else source
        try:
            tree = ast.parse(code)
        except SyntaxError as e:
            raise UsageError(
                f"syntax error in the cell, line {e.lineno}: {e.msg}\n    {(e.text or '').rstrip()}\n"
                "fix that line and run the cell again") from None
        if not tree.body:
            raise UsageError("the cell is empty; end it with the call to trace, e.g. `f(x, y)`")
        last = tree.body[-1]
        if not (isinstance(last, ast.Expr) and isinstance(last.value, ast.Call)):
            kind = type(last).__name__.lower()
            raise UsageError(
                f"the cell's last statement must be the call to trace, e.g. `func1(x, y)`; here it is "
                f"a{'n' if kind[0] in 'aeiou' else ''} {kind} (line {last.lineno}). Add the call as the last line.")
        filename = shell.compile.cache(code) if hasattr(shell, "compile") else "<jaxprlens-cell>"
        ns = shell.user_ns
        call = last.value
        try:
            if len(tree.body) > 1:
                prefix = ast.Module(body=tree.body[:-1], type_ignores=[])
                exec(compile(prefix, filename, "exec"), ns)
            fn = self._eval(call.func, filename, ns)
            pos, kw = [], {}
            for a in call.args:
                if isinstance(a, ast.Starred):
                    pos.extend(self._eval(a.value, filename, ns))
                else:
                    pos.append(self._eval(a, filename, ns))
            for k in call.keywords:
                if k.arg is None:
                    kw.update(self._eval(k.value, filename, ns))
                else:
                    kw[k.arg] = self._eval(k.value, filename, ns)
        except Exception:  # noqa: BLE001 - user code failed: show the user's traceback
            self._show_user_error()
            return None
        if not callable(fn):
            kind = type(fn).__name__
            raise UsageError(f"`{ast.unparse(call.func)}` is a{'n' if kind[0] in 'aeiou' else ''} {kind}, "
                             "not a function; "
                             "the last line must call a function, e.g. `f(x)`")
        try:
            return model.trace(fn, *pos, static_argnums=static, **kw)
        except model.TraceError as e:
            raise UsageError(str(e)) from None
        except jax.errors.JAXTypeError as e:
            raise self._tracer_usage_error(e, filename) from None
        except Exception as e:  # noqa: BLE001
            if type(e).__name__ in _TRACER_FIX:
                raise self._tracer_usage_error(e, filename) from None
            self._show_user_error()
            return None

    def _tracer_usage_error(self, e, filename: str) -> UsageError:
        name = type(e).__name__
        fix = _TRACER_FIX.get(name, "see the error above")
        return UsageError(f"{name}{_cell_location(e, filename)}: {fix}")

    @staticmethod
    def _eval(node, filename: str, ns: dict):
        expr = ast.Expression(body=node)
        ast.fix_missing_locations(expr)
        return eval(compile(expr, filename, "eval"), ns)

    def _show_user_error(self):
        import sys
        etype, value, tb = sys.exc_info()
        self.shell.showtraceback((etype, value, _user_tb(tb)))

    def _view(self, program, args):
        from .views import build_view
        try:
            with language(args.lang):           # views made without a ``lang`` speak this cell's
                return build_view(program, args)
        except ValueError as e:
            raise UsageError(str(e)) from None

