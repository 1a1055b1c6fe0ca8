"""Loops in the user's source (loops.py): which positions lie in one loop of one function."""
import linecache

from jaxprlens.model.loops import Loops

SOURCE = '''\
def f(xs):
    y = 0
    for x in xs:
        y = y + x
        z = [x * i for i in xs]
    while y:
        y = y - 1
    return y

for k in range(3):
    def g(a):
        return a + 1
    top = g(k)
'''
FILE = "<test_loops-cell>"


def _loops():
    linecache.cache[FILE] = (len(SOURCE), None, SOURCE.splitlines(True), FILE)
    return Loops()


def test_positions_in_one_loop_of_one_function():
    loops = _loops()
    assert loops.same_loop(FILE, (4, 13), (5, 30))          # the for body, two lines
    assert loops.same_loop(FILE, (5, 14), (5, 20))          # the comprehension
    assert loops.same_loop(FILE, (7, 10), (7, 15))          # the while
    assert not loops.same_loop(FILE, (2, 8), (4, 13))       # before the loop and in it
    assert not loops.same_loop(FILE, (4, 13), (7, 15))      # two loops


def test_a_loop_around_a_def_is_not_the_functions_loop():
    loops = _loops()
    assert not loops.same_loop(FILE, (12, 15), (12, 19))    # inside g: the for around its def does not count
    assert loops.same_loop(FILE, (13, 10), (11, 8))         # the top level's own loop


def test_a_file_that_cannot_be_read_has_no_loops():
    assert not Loops().same_loop("<no such file>", (1, 0), (1, 1))
    linecache.cache["<broken>"] = (5, None, ["def (:\n"], "<broken>")
    assert not Loops().same_loop("<broken>", (1, 0), (1, 1))
