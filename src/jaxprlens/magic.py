"""IPython glue: the ``%%jaxpr`` / ``%jaxpr`` magics parse options, run the cell, trace its last call
and return a view object.  All IPython code of jaxprlens lives here."""
from __future__ import annotations

import ast
import builtins
import copy
import functools
import inspect
import os
import types
from typing import NamedTuple

import jax
from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from jaxprlens.model.tracing import TraceError, trace
from jaxprlens.model.errors import Keyed, said as _said
from jaxprlens.present.display import shorten
from jaxprlens.present.i18n import a_noun, resolve, set_default_lang, t
from jaxprlens.present.settings import SETTINGS, settings
from jaxprlens.present.settings import put as put_setting
from jaxprlens.present.usage import help_text, option_error, option_help
from jaxprlens.views import Options, build_view
from jaxprlens.views.options import SPECS, Spec, split_line, written

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))

# JAX's tracer errors that have one fix to suggest; the fix in words is the catalogue's ``fix_<name>``
_TRACER_FIX = ("TracerBoolConversionError", "ConcretizationTypeError", "TracerIntegerConversionError",
               "TracerArrayConversionError")


def _argument(spec: Spec) -> argument:
    """The ``@argument`` of one option, as its spec says (``views/options.py``)."""
    kw: dict = {"default": spec.default, "help": option_help(f"jaxpr.{spec.name}", default=spec.default)}
    if not spec.takes_value:
        return argument(*spec.flags, action="store_true", **kw)
    if spec.value is not str:
        kw["type"] = spec.value
    if spec.choices:
        kw["choices"] = list(spec.choices)
    if spec.const is not None:
        kw.update(nargs="?", const=spec.const)
    return argument(*spec.flags, **kw)


def _options(specs):
    """``@magic_arguments()`` and an ``@argument`` per spec, in order: the magic's parser, read from the specs."""
    def decorate(fn):
        for spec in reversed(specs):          # decorators apply from the bottom up
            fn = _argument(spec)(fn)
        return magic_arguments()(fn)
    return decorate


def _lang_of(opts_text: str) -> str:
    """The language to say a bad option in: the cell's ``--lang`` if one is readable and known, else the
    kernel's (``%jaxpr_config``), else English."""
    given = written(opts_text, "lang")
    for lang in ((given,) if given else ()) + (None,):
        try:
            return resolve(lang)
        except ValueError:
            continue
    return "en"


def _in_jax(tb) -> bool:
    return os.sep + "jax" + os.sep in tb.tb_frame.f_code.co_filename


def _user_tb(tb):
    """Drop our own frames (and JAX's) from the front of a traceback so the user sees their code."""
    while tb is not None and (tb.tb_frame.f_code.co_filename.startswith(_PKG_DIR) or _in_jax(tb)):
        tb = tb.tb_next
    return tb


def _without_jax(tb):
    """``(traceback, n)``: the user's frames of ``tb`` (from its first), JAX's own ``n`` frames left out (a
    shape error raised deep inside JAX lists ~40 of them); ``tb`` itself when no frame is the user's."""
    kept, n = [], 0
    while tb is not None:
        if _in_jax(tb):
            n += 1
        else:
            kept.append(tb)
        tb = tb.tb_next
    if not kept or not n:
        return None, 0
    out = None
    for f in reversed(kept):
        out = types.TracebackType(out, f.tb_frame, f.tb_lasti, f.tb_lineno)
    return out, n


def _cell_location(exc, filename: str, lang: str = "en") -> str:
    tb, found = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            found = tb
        tb = tb.tb_next
    if found is None:
        return ""
    import linecache
    text = linecache.getline(filename, found.tb_lineno).strip()
    return t("cell_line", lang, line=found.tb_lineno, text=text)


def _cell_number(shell) -> int:
    """The running cell's ``In[N]``: the number IPython compiled the calling cell under (IPython 9 counts
    the next cell while one runs, 8 the running one, so the counter alone is off by one on some)."""
    import sys
    numbers = getattr(shell.compile, "_filename_map", {})
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename in numbers:
            return numbers[frame.f_code.co_filename]
        frame = frame.f_back
    return getattr(shell, "execution_count", 0) or 0


class _Call(NamedTuple):
    """The cell's last call, evaluated: what to trace."""
    fn: object
    pos: tuple
    kw: dict
    static: tuple
    filename: str
    text: str


def _call_of(stmt) -> ast.Call | None:
    """The call a last statement traces: ``f(x)``, ``y = f(x)``, ``y: T = f(x)``, ``a, b = f(x)``."""
    value = getattr(stmt, "value", None) if isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign,
                                                              ast.AugAssign)) else None
    return value if isinstance(value, ast.Call) else None


_RESULT = "_jaxprlens_result"


def _bind(stmt, result, filename: str, ns: dict):
    """Run the assignment ``stmt`` with its call's ``result`` in place of the call."""
    assign = copy.copy(stmt)
    assign.value = ast.copy_location(ast.Name(id=_RESULT, ctx=ast.Load()), stmt.value)
    ns[_RESULT] = result
    try:
        exec(compile(ast.Module(body=[assign], type_ignores=[]), filename, "exec"), ns)
    finally:
        ns.pop(_RESULT, None)


# statements the catalogue names (``stmt_<kind>``) when one ends the cell in place of a call
_STATEMENTS = ("Assign", "AnnAssign", "AugAssign", "Expr", "FunctionDef", "AsyncFunctionDef", "ClassDef", "Import",
               "ImportFrom", "For", "While", "If", "With", "Try", "Return", "Pass", "Delete", "Assert")


def _not_a_call(stmt, code: str, lang: str) -> str:
    kind = type(stmt).__name__
    what = t(f"stmt_{kind}" if kind in _STATEMENTS else "stmt_other", lang, kind=a_noun(kind.lower(), lang))
    text = (ast.get_source_segment(code, stmt) or "").splitlines()
    shown = f" `{shorten(text[0], 60)}` " if text else " "
    return t("last_not_call", lang, line=stmt.lineno, shown=shown, what=what)


def _top_level_await(tree: ast.Module):
    """The first statement that awaits outside any function (``y = await g(x)``, ``async with``), or None."""
    def awaits(node) -> bool:
        if isinstance(node, (ast.Await, ast.AsyncFor, ast.AsyncWith)):
            return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        return any(awaits(child) for child in ast.iter_child_nodes(node))
    return next((stmt for stmt in tree.body if awaits(stmt)), None)


def _check_plain(fn, name: str, lang: str) -> None:
    """A generator or async function called last makes a generator or a coroutine, which JAX cannot trace: said
    before the call runs."""
    target = fn
    for _ in range(100):      # what a partial or jax.jit wraps; a plain function that wraps one is one of its own
        if isinstance(target, types.FunctionType):
            break
        inner = target.func if isinstance(target, functools.partial) else getattr(target, "__wrapped__", None)
        if inner is None:
            break
        target = inner
    if inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target):
        raise UsageError(t("last_async", lang, name=name))
    if inspect.isgeneratorfunction(target):
        raise UsageError(t("last_generator", lang, name=name))


def _array_like(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) or (hasattr(x, "shape") and hasattr(x, "dtype"))


@magics_class
class JaxprMagics(Magics):
    """Holds the ``jaxpr`` magic."""

    @_options(SPECS)
    @line_cell_magic
    def jaxpr(self, line: str = "", cell: str | None = None):
        """Trace a call and show its jaxpr: an annotated table, a graph, a debugger or a timed run.

        Usage::

            %%jaxpr [options]
            <ordinary cell code; its LAST line must call a JAX function on arrays: f(x, y) or y = f(x)>

            %jaxpr [options] f(x, y)
            %jaxpr --devices

        The cell runs as usual (its definitions stay in the namespace); its last call is traced
        with ``jax.make_jaxpr`` and the view is returned (stored in the notebook and in ``_``).
        When the last line assigns the call (``y = f(x)``), the call also runs once and ``y`` gets its
        result, as the cell would have.

        ``--transform vmap`` shows ``jax.vmap(f, in_axes)`` on a batch made from the call: the call is
        one example, and each mapped argument (``--in-axes``, default 0) is stacked twice along its axis.
        With ``--batched`` the arguments as written are the batch: ``f(xs)`` shows
        ``jax.vmap(f, in_axes)(xs)``.

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
            opts_text, call_text = split_line(line)
        else:
            opts_text, call_text = line, None
        args = self._parse(self.jaxpr, opts_text)
        if args.help:                          # the help, in the cell's language; nothing runs
            return self._help(self.jaxpr, opts_text)
        opts = self._options(args, opts_text)  # every option checked before the cell runs
        if opts.devices:
            from jaxprlens.views.compiled.run import devices_view
            return devices_view(opts.lang)
        if cell is None and not call_text.strip():
            raise UsageError(t("give_call", opts.lang))
        source = cell if cell is not None else call_text
        call = self._run_source(source, opts)
        if call is None:
            return None
        traced = self._trace(call, opts)
        if traced is None:
            return None
        program = traced[0]
        if not program.eqns and program.out_tree == jax.tree_util.tree_structure(None):
            raise UsageError(t("last_none", opts.lang, text=shorten(call.text, 60)))
        return self._view(call, opts, *traced)

    @magic_arguments()
    @argument("-h", "--help", action="store_true", help=option_help("jaxpr_config.help"))
    @argument("--lang", default=None, help=option_help("jaxpr_config.lang"))
    @argument("--graph-png", default=None, choices=SETTINGS["graph_png"].choices,
              help=option_help("jaxpr_config.graph_png"))
    @argument("--reset", action="store_true", help=option_help("jaxpr_config.reset"))
    @line_magic
    def jaxpr_config(self, line: str = ""):
        """Kernel-wide settings of ``%%jaxpr``; with no option, print them and where each comes from.

        Usage::

            %jaxpr_config                  # language: zh (set by %jaxpr_config), and the others
            %jaxpr_config --lang zh        # every view in Chinese from now on; a cell's --lang still wins
            %jaxpr_config --graph-png off  # graphs without their PNG copy (for LaTeX/PDF): a lighter notebook
            %jaxpr_config --reset          # back to $JAXPRLENS_LANG and $JAXPRLENS_GRAPH_PNG, else the defaults

        The environment variables ``JAXPRLENS_LANG`` (``en`` or ``zh``) and ``JAXPRLENS_GRAPH_PNG`` (``1`` or
        ``0``) set them before any ``%jaxpr_config``.
        """
        args = self._parse(self.jaxpr_config, line)
        if args.help:
            return self._help(self.jaxpr_config, line)
        try:
            if args.reset:
                set_default_lang(None)
                put_setting("graph_png", None)
            if args.lang is not None:
                set_default_lang(args.lang)
            if args.graph_png is not None:
                put_setting("graph_png", args.graph_png)
            now = settings()
        except ValueError as e:
            raise UsageError(_said(e, _lang_of(""))) from None
        if args.lang is None and args.graph_png is None and not args.reset:
            lang = now["lang"][0]
            for name, (value, origin) in now.items():
                where = t(f"origin_{origin}", lang, env=SETTINGS[name].env)
                print(t(f"config_{name}", lang, value=value, origin=where))

    # ------------------------------------------------------------------ helpers
    def _parse(self, magic, opts_text: str):
        """The options of ``magic`` (``self.jaxpr``, ``self.jaxpr_config``) as argparse reads them; what argparse
        refuses, said again in the cell's language."""
        try:
            return parse_argstring(magic, opts_text)
        except UsageError as e:
            name = f"%{'%' if magic.__name__ == 'jaxpr' else ''}{magic.__name__}"
            raise UsageError(option_error(str(e), magic.parser, _lang_of(opts_text), name)) from None
        except ValueError as e:          # shlex, splitting the line: "No closing quotation"
            key = "opt_quote" if "quotation" in str(e) else "opt_bad"
            raise UsageError(t(key, _lang_of(opts_text), opts=opts_text.strip(), error=str(e))) from None

    @staticmethod
    def _help(magic, opts_text: str) -> None:
        """``--help``: the magic's help printed in the cell's language (``--lang``, else the kernel's)."""
        print(help_text(magic.parser, _lang_of(opts_text)), end="")

    def _options(self, args, opts_text: str) -> Options:
        """The cell's options (``args``, as argparse read them), checked once (``Options.from_namespace``): a bad
        value (``--device tpu:9``, ``--argnums x``), one that needs another (``--compare`` without
        ``--transform``) fail here, before the cell runs, in the cell's language."""
        try:
            return Options.from_namespace(args)
        except ValueError as e:
            raise UsageError(_said(e, _lang_of(opts_text))) from None

    def _run_source(self, source: str, opts: Options) -> _Call | None:
        """Run the cell but its last call; evaluate that call's function and arguments.  A last line that
        assigns the call (``y = f(x)``) also runs the call and binds ``y``, as the cell would."""
        shell = self.shell
        code = shell.transform_cell(source) if hasattr(shell, "transform_cell") else source
        try:
            tree = ast.parse(code)
        except SyntaxError as e:
            raise UsageError(t("cell_syntax", opts.lang, line=e.lineno, msg=e.msg,
                               text=(e.text or "").rstrip())) from None
        if not tree.body:
            raise UsageError(t("cell_empty", opts.lang))
        awaits = _top_level_await(tree)
        if awaits is not None:      # IPython would run it as a coroutine; the magic runs plain code: said first
            text = (ast.get_source_segment(code, awaits) or "").splitlines()
            raise UsageError(t("cell_await", opts.lang, line=awaits.lineno, text=shorten(text[0] if text else "", 60)))
        static = opts.static_argnums
        filename = self._cache(code, source)
        ns = shell.user_ns
        last = tree.body[-1]
        call = _call_of(last)
        try:
            if call is None:      # nothing to trace: run the whole cell as usual, then say what is missing
                exec(compile(tree, filename, "exec"), ns)
            else:
                if len(tree.body) > 1:
                    prefix = ast.Module(body=tree.body[:-1], type_ignores=[])
                    exec(compile(prefix, filename, "exec"), ns)
                fn = self._eval(call.func, filename, ns)
                _check_plain(fn, ast.unparse(call.func), opts.lang)
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
                if not isinstance(last, ast.Expr):        # y = f(x): run the call, bind y
                    _bind(last, fn(*pos, **kw), filename, ns)
        except UsageError:
            raise
        except Exception as e:  # noqa: BLE001 - user code failed: the cell fails with the user's traceback
            raise self._user_error(e, opts.lang)  # noqa: B904 - the user's own exception, raised again as it is
        if call is None:
            raise UsageError(_not_a_call(last, code, opts.lang))
        text = ast.get_source_segment(code, call) or ast.unparse(call)
        if fn is builtins.print and (any(isinstance(a, ast.Call) for a in call.args)
                                     or any(_array_like(x) for x in jax.tree_util.tree_leaves(pos))):
            # print(f(x)) would trace print: a tracer printed, a jaxpr with no equations
            inner = next((a for a in call.args if isinstance(a, ast.Call)), None)
            inner = ast.get_source_segment(code, inner) if inner is not None else "f(x)"
            raise UsageError(t("last_print", opts.lang, text=shorten(text, 60), inner=shorten(inner, 60)))
        if not callable(fn):
            raise UsageError(t("not_a_function", opts.lang, call=ast.unparse(call.func),
                               kind=a_noun(type(fn).__name__, opts.lang)))
        dynamic = [a for i, a in enumerate(pos) if i not in static and i - len(pos) not in static]
        leaves = jax.tree_util.tree_leaves((dynamic, kw))
        if leaves and not any(_array_like(x) for x in leaves):
            names = [a_noun(k, opts.lang) for k in dict.fromkeys(type(x).__name__ for x in leaves)]
            raise UsageError(t("not_arrays", opts.lang, text=shorten(text, 60),
                               kinds=t("and", opts.lang).join(names)))
        return _Call(fn, tuple(pos), kw, static, filename, text)

    def _trace(self, call: _Call, opts: Options):
        """``(program, transformed)``: the traced call and, for ``--batched``, the vmapped program
        (then ``program`` is one example of the batch).  None when the user's code failed."""
        vmap = opts.transform == "vmap"
        try:
            if vmap and opts.batched:
                from jaxprlens.engine.transform import batched_call
                in_axes = opts.transform_options.get("in_axes")
                return batched_call(call.fn, call.pos, call.kw, in_axes, call.static)
            return trace(call.fn, *call.pos, static_argnums=call.static, see_through=not opts.outer,
                               **call.kw), None
        except TraceError as e:
            raise UsageError(_said(e, opts.lang)) from None
        except Exception as e:  # noqa: BLE001 - any error of the user's call: a tracer one is explained
            if type(e).__name__ in _TRACER_FIX:
                raise self._tracer_usage_error(e, call.filename, opts.lang) from None
            if vmap:
                raise self._vmap_error(e, call, opts, t("vmap_call_fails", opts.lang,
                                                        text=shorten(call.text, 60))) from None
            raise self._user_error(e, opts.lang)  # noqa: B904 - the user's own exception, raised again as it is

    def _vmap_error(self, e, call: _Call, opts: Options, what: str) -> UsageError:
        """One line for a vmap view that cannot be traced (no JAX traceback); suggests --batched when
        the call's arguments have an axis, so they may be a batch already."""
        text = _said(e, opts.lang)              # ours in the cell's language, JAX's as JAX says it
        if isinstance(e, Keyed) or isinstance(e, ValueError) and not _cell_location(e, call.filename) \
                and "\n" not in text:
            return UsageError(text)             # ours: the batch cannot be built, and why
        first = (text.strip().splitlines() or [""])[0].rstrip(".")
        said = f"{type(e).__name__}{_cell_location(e, call.filename, opts.lang)}{t('colon', opts.lang)}{first}"
        if opts.batched:
            return UsageError(t("vmap_batched_fails", opts.lang, said=said))
        leaves = jax.tree_util.tree_leaves((call.pos, call.kw))
        hint = t("vmap_hint", opts.lang) if any(getattr(x, "ndim", 0) for x in leaves) else ""
        return UsageError(f"{what}{t('colon', opts.lang)}{said}{hint}")

    def _tracer_usage_error(self, e, filename: str, lang: str | None) -> UsageError:
        name = type(e).__name__
        fix = t(f"fix_{name}", lang)
        return UsageError(f"{name}{_cell_location(e, filename, lang)}: {fix}")      # as the stored course shows it

    @staticmethod
    def _eval(node, filename: str, ns: dict):
        expr = ast.Expression(body=node)
        ast.fix_missing_locations(expr)
        return eval(compile(expr, filename, "eval"), ns)

    def _cache(self, code: str, raw: str) -> str:
        """The filename the cell's code is compiled under: IPython's own for this cell, so tracebacks
        read ``Cell In[N]`` with the cell's execution count and show its lines."""
        shell = self.shell
        if not hasattr(shell, "compile"):
            return "<jaxprlens-cell>"
        return shell.compile.cache(code, _cell_number(shell), raw_code=raw)

    def _user_error(self, e: BaseException, lang: str) -> BaseException:
        """The user's exception, to raise again so the cell fails as a plain Python cell would (the kernel
        replies ``error``; Run All and nbval stop), shown from the user's first frame: IPython renders an
        exception's ``_render_traceback_`` in place of the magic machinery's frames and ours.  JAX's own
        frames after the user's are left out and counted (the exception keeps its whole traceback)."""
        user, tb_format = _user_tb(e.__traceback__), self.shell.InteractiveTB
        short, hidden = _without_jax(user)

        def render():
            if not hidden:
                return tb_format.structured_traceback(type(e), e, user)
            lines = tb_format.structured_traceback(type(e), e, short)
            return lines[:-1] + [t("tb_hidden", lang, n=hidden)] + lines[-1:]
        try:
            e._render_traceback_ = render
        except AttributeError:      # an exception that takes no attributes: shown whole, still an error
            pass
        return e

    def _view(self, call: _Call, opts: Options, program, transformed=None):
        try:
            return build_view(program, opts, transformed)
        except Exception as e:  # noqa: BLE001 - any error a view meets running the user's program
            if type(e).__name__ in _TRACER_FIX:
                raise self._tracer_usage_error(e, call.filename, opts.lang) from None
            if opts.transform == "vmap":
                raise self._vmap_error(e, call, opts, t("vmap_stacked", opts.lang)) from None
            if isinstance(e, (ValueError, Keyed)):      # bad input, or any error of ours: in the cell's language
                raise UsageError(_said(e, opts.lang)) from None
            raise
