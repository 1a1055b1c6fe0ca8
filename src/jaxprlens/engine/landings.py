"""Where the stepper's Step (over) and Step out land, for a run made of repeated ``Stepper.step_into``: a recorded
replay stores them per step, so the script follows the engine's moves instead of defining them again.

``step()`` runs the current equation whole (a loop, a branch, a call with all it enters) and stops at the next
one: in the ``step_into`` run that is the first later state no deeper than the current one.  ``step_out()``
finishes the current frame (a whole loop, for a loop body) and returns to its caller: the first later state
above it.  Breakpoints and conditions aside: the replay stops on the way as ``run()`` does, on the recorded
states (``tests/test_breakpoints.py`` checks every landing against the live moves)."""
from __future__ import annotations


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
