"""Where the stepper's Step (over), Step out and Over call land, for a run made of repeated ``Stepper.step_into``:
a recorded replay stores them per step, so the script follows the engine's moves instead of defining them again.

``step()`` runs the current equation whole (a loop, a branch, a call with all it enters) and stops at the next
one: in the ``step_into`` run that is the first later state no deeper than the current one.  ``step_out()``
finishes the current frame (a whole loop, for a loop body) and returns to its caller: the first later state
above it.  Breakpoints and conditions aside: the replay stops on the way as ``run()`` does, on the recorded
states (``tests/test_breakpoints.py`` checks every landing against the live moves)."""
from __future__ import annotations

from jaxprlens.model.calls import call_tree


def state_key(stepper) -> tuple:
    """The state a stepper is in, comparable across runs of one program: per frame the eqn entered, the
    sub-jaxpr, the loop iteration and the position."""
    return tuple((f.eqn.id if f.eqn is not None else None, f.sub.key if f.sub is not None else None,
                  f.iteration, f.pc) for f in stepper.frames) + (stepper.done,)


def landings(depths: list) -> tuple[list, list]:
    """``(over, out)``: for each state ``k`` of a ``step_into`` run (``depths[k]`` its ``Stepper.depth``), the
    index of the state ``step()`` reaches from it, and ``step_out()``'s (None at the top level: there it
    runs on like Continue); None when the run ends before it (a capped recording)."""
    n = len(depths)
    over: list = [None] * n
    out: list = [None] * n
    wait_over: list = []       # states whose step has not landed yet: depths increasing up the stack
    wait_out: list = []        # states whose step out has not landed yet: depths non-decreasing
    for j, d in enumerate(depths):
        while wait_over and depths[wait_over[-1]] >= d:
            over[wait_over.pop()] = j
        while wait_out and depths[wait_out[-1]] > d:
            out[wait_out.pop()] = j
        wait_over.append(j)
        if d > 1:
            wait_out.append(j)
    return over, out


# ---------------------------------------------------------------- over a call (the program's Python calls)
# A frame's equations come from the Python calls tracing inlined (``model.calls``: ``loss_fn › blocks[1] ·
# Block``).  "Over call" runs the innermost call holding the current equation to its end and stops at the
# equation after its last one (or wherever the frame goes once that was its last: the caller, the loop's next
# iteration), stopping on the way as ``step_out()`` does.

def call_end(program, pc: int) -> int | None:
    """The position just past the innermost call holding equation ``pc`` of ``program`` (its last equation's
    successor), or None: past the end, or an equation of no call but the whole program's."""
    eqns = program.eqns
    if pc >= len(eqns):
        return None
    tree = call_tree(program)
    lo, hi = tree.span(tree.group_of(eqns[pc]))
    return None if (lo, hi) == (0, len(eqns) - 1) else hi + 1


def activation(stepper) -> tuple:
    """The current frame's activation, comparable across runs: ``state_key`` without its position (a loop's
    next iteration, a branch's other frame, are other activations at the same depth)."""
    key = state_key(stepper)[:-1]
    return key[:-1] + (key[-1][:3],)


def inside_call(depth: int, act: tuple, end: int, now_depth: int, now_act: tuple, now_pc: int) -> bool:
    """Whether a state (``now_*``) is still inside the call that ends at ``end`` of the frame activation
    ``act`` at ``depth``: deeper (in something the call runs), or there before ``end``."""
    return now_depth > depth or (now_depth == depth and now_act == act and now_pc < end)


def over_call(stepper):
    """The live move: run the innermost call holding the current equation to its end (``call_end``), as one
    move (``back()`` undoes it whole), stopping at a breakpoint or a condition on the way as ``step_out()``
    does; a plain ``step()`` where the equation is in no call."""
    st = stepper
    end = None if st.done else call_end(st.frame.program, st.frame.pc)
    if end is None:
        return st.step()
    st.stop = st.note = st.ended = None
    depth, act = st.depth, activation(st)
    st.advance_while(lambda now: inside_call(depth, act, end, now.depth, activation(now), now.frame.pc))
    return st


def call_landings(states: list, over: list) -> list:
    """For each state ``k`` of a ``step_into`` run, ``(depth, activation, pc, call_end)``, the index of the state
    ``over_call`` reaches from it: Step's (``over[k]``) where the equation is in no call; None when the run ends
    before it (a capped recording)."""
    out: list = []
    for k, (depth, act, _, end) in enumerate(states):
        if end is None:
            out.append(over[k])
            continue
        j = k + 1
        while j < len(states) and inside_call(depth, act, end, states[j][0], states[j][1], states[j][2]):
            j += 1
        out.append(j if j < len(states) else None)
    return out
