"""A debugger Step computed ahead (views/debugger/debugger.py ``Debugger.ahead``, engine/stepper.py ``Stepper.ahead``):
after each answer the kernel sends the state the next Step would show, for the front end to paint at the click (issue
27). Every predicted state must be the state the real Step then sends; no user effect runs ahead; an edit, a Back, a
breakpoint change it; the stepper's moves and history are what they are without it."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from jaxprlens.model import trace
from jaxprlens.engine.stepper import Stepper
from jaxprlens.views.debugger.debugger import Debugger
from seeds import SEEDS

pytestmark = pytest.mark.usefixtures("fake_comm")     # each Debugger records what it sends (conftest.py)


class Comm:
    """A debugger driven as the front end drives it (``_on_msg``, asks numbered by ``seq``), beside a twin
    driven through ``press`` (which sends nothing ahead): each ask's answer, the twin's, and what came ahead."""

    def __init__(self, fn, *args):
        p = trace(fn, *args)
        self.d, self.twin = Debugger(p, *args), Debugger(p, *args)
        self.sent, self.twin_sent = self.d.comm.custom, self.twin.comm.custom
        self.seq, self.ahead = 0, None
        self.predicted = self.checked = 0
        self.ask("ready")

    def ask(self, name: str, **arg) -> dict:
        """One ask; checks the answer against the twin's and, for a Step, against what came ahead for it."""
        self.seq += 1
        n, m = len(self.sent), len(self.twin_sent)
        before = self.ahead
        self.d._on_msg(self.d, dict(arg, do=name, seq=self.seq), [])
        self.twin.press(name, **arg)
        got, want = self.sent[n:], self.twin_sent[m:]
        ahead = [g["ahead"] for g in got if "ahead" in g]
        answers = [g for g in got if "ahead" not in g]
        assert len(ahead) == 1 and ahead[0]["seq"] == self.seq            # one, after the answers, numbered
        assert "ahead" in got[-1]
        assert [a.get("seq") for a in answers] == [self.seq] * len(answers)
        assert [a["state"] for a in answers] == [w["state"] for w in want]  # the same moves as without it
        if name == "step" and before is not None and "step" in before:
            self.checked += 1
            assert answers[-1]["state"] == before["step"]                 # predicted == real
            assert not {"frame", "bodies", "rows"} & set(answers[-1])      # nothing it needed came late
        self.ahead = ahead[0]
        if "step" in self.ahead:
            self.predicted += 1
        return answers[-1]

    def steps(self, n: int = 10_000):
        for _ in range(n):
            if self.d.stepper.done:
                break
            self.ask("step")


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_every_predicted_step_of_the_seeds_is_the_state_the_step_then_sends(name):
    fn, args = SEEDS[name]
    c = Comm(fn, *args)
    c.steps()
    assert c.d.stepper.done
    n = len(c.d.stepper.program.eqns)
    assert c.checked == c.predicted == n - 1                # every Step but the one that ends it (jax.jit's note)
    flat = jax.tree_util.tree_leaves(c.d.stepper.outputs)
    want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    assert all(np.allclose(a, b) for a, b in zip(flat, want))


def loops(x, n):
    def body(i, c):
        return lax.cond(c.sum() > 3., lambda v: v * .5, lambda v: v + 1., c) + jnp.sin(i * 1.)
    y = lax.fori_loop(0, n, body, x)
    z, ys = lax.scan(lambda c, v: (c + v, c * v), y, jnp.stack([x, y]))
    k = lax.while_loop(lambda s: s[0] < 4, lambda s: (s[0] + 1, s[1] * 1.5), (0, z))[1]
    return k + ys.sum()


MIXED = ["into", "step", "into", "step", "step", "step", "back", "step", "into", "step", "step", "step", "out",
         "step", "step", "into", "step", "step", "call", "step", "into", "step", "step", "out", "back", "step"]


def test_predictions_hold_through_a_while_scan_and_cond_in_and_out_of_their_bodies():
    c = Comm(loops, jnp.array([1., 2.]), 3)
    for name in MIXED:
        if c.d.stepper.done:
            break
        c.ask(name)
    c.steps()
    assert c.d.stepper.done and c.checked >= 20
    np.testing.assert_allclose(c.d.stepper.outputs, jax.jit(loops)(jnp.array([1., 2.]), 3), rtol=1e-6)


def test_predictions_of_the_folded_nnx_train_step_carry_the_bodies_of_the_calls_they_enter():
    from libraries import nnx_jit_train_step
    fn, args = nnx_jit_train_step()
    c = Comm(fn, *args)
    bodies = 0
    for name in ["step"] * 12 + ["call", "step", "step", "call"] + ["step"] * 10:
        before = c.ahead
        c.ask(name)
        bodies += bool(before and "bodies" in before)
    assert c.checked >= 20 and bodies >= 1          # a Step into a folded call: its body came ahead


def printing(x):
    a = x * 2.
    jax.debug.print("a0={a}", a=a[0])
    b = jnp.log(a - 3.)
    jax.debug.callback(lambda v: print("cb", v), b[1])
    return b * 2.


def test_a_users_effect_is_never_run_ahead_and_prints_once():
    c = Comm(printing, jnp.array([1., 2., 4.]))
    eqns = c.d.stepper.program.eqns
    assert sum(bool(e.raw.effects) for e in eqns) == 2                 # debug_print, debug_callback
    while not c.d.stepper.done:
        c.ask("step")
        nxt, pc = c.d.stepper.current, c.d.stepper.frame.pc
        assert ("step" in c.ahead) == (nxt is not None and not nxt.raw.effects and pc < len(eqns) - 1)
    assert c.d.printed.count("a0=2.0") == 1 and c.d.printed.count("cb ") == 1
    assert c.d.printed == c.twin.printed


def test_an_edit_makes_the_next_prediction_from_the_edited_values_and_back_undoes_one_step():
    x = jnp.array([1., 2.])
    fn = SEEDS["func1"][0]
    c = Comm(fn, x, jnp.ones(2))
    c.ask("step")                                          # sin(second) computed
    name = c.d.stepper.last_eqn.outvars[0].name
    c.ask("edit", var=name, op="nan")                      # the value the next Step reads
    assert "step" in c.ahead
    c.ask("step")                                          # checked: the prediction after the edit holds
    assert c.checked == 2
    assert np.isnan(np.asarray(c.d.stepper.last_outputs[0])).all()
    at = c.d.stepper.frame.pc
    c.ask("back")                                          # exactly one Step undone
    assert c.d.stepper.frame.pc == at - 1
    c.ask("toggle", eqn=c.d.stepper.program.eqns[-1].id)
    c.steps()
    assert c.d.stepper.done


def test_outputs_taken_ahead_are_not_reused_once_an_edit_changed_an_input():
    fn, args = SEEDS["func1"]
    p = trace(fn, *args)
    st = Stepper(p, *args)
    st.step()
    with st.ahead() as took:
        assert took and st.frame.pc == 2                   # there, inside
        ahead_out = st.last_outputs[0]
    assert st.frame.pc == 1 and st.history_length == 1     # back where it was
    st.edit(p.eqns[0].outvars[0].name, "zero")
    st.step()
    assert st.last_outputs[0] is not ahead_out
    np.testing.assert_array_equal(np.asarray(st.last_outputs[0]), np.zeros(8))
    st.back()
    with st.ahead():
        kept = st.last_outputs[0]
    st.step()                                              # the same inputs: the outputs computed ahead
    assert st.last_outputs[0] is kept and st.history_length == 3     # step, edit, step
    st.back()
    assert st.frame.pc == 1


def test_nothing_is_taken_ahead_where_the_history_is_full_or_at_the_end():
    fn, args = SEEDS["func1"]
    st = Stepper(trace(fn, *args), *args, max_history=2)
    st.step()
    with st.ahead() as took:
        assert took
    st.step()
    with st.ahead() as took:                               # a step would push the first one out
        assert not took
    assert st.history_length == 2 and not st.history_truncated
    st.run()
    with st.ahead() as took:
        assert not took


def test_a_big_equation_is_not_computed_ahead(monkeypatch):
    import jaxprlens.views.debugger.debugger as dbg
    monkeypatch.setattr(dbg, "AHEAD_FLOPS", 0)
    monkeypatch.setattr(dbg, "AHEAD_BYTES", 0)
    fn, args = SEEDS["func1"]
    c = Comm(fn, *args)
    c.steps()
    assert c.predicted == 0


def test_the_step_after_a_prediction_computes_neither_its_values_nor_its_state_again(monkeypatch):
    fn, args = SEEDS["func1"]
    c = Comm(fn, *args)
    assert "step" in c.ahead
    made, bound = [], []
    state = c.d.view.state
    monkeypatch.setattr(c.d.view, "state", lambda *a, **k: made.append(1) or state(*a, **k))
    bind = c.d.stepper._bind
    monkeypatch.setattr(c.d.stepper, "_bind", lambda *a: bound.append(1) or bind(*a))
    n = len(c.sent)
    c.d.press("step")                                  # the answer: the state sent ahead, the outputs kept
    assert made == [] and bound == []
    assert c.sent[n]["state"] == c.ahead["step"]
    c.d.press("back")
    assert made == [1]
