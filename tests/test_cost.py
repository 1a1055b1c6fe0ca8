"""Cost rules (FLOPs, bytes in + out) per primitive, loop totals, and the table's cost column."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from jaxprlens import model
from jaxprlens.engine.cost import Cost, Ctx, Costs, cost_rules, costs
from jaxprlens.present.i18n import si
from jaxprlens.present.words import cost_text
from seeds import SEEDS


def one(fn, *args):
    """The cost of the single top-level equation of ``fn(*args)``, by roofline-or-own and by own rule."""
    p = model.trace(fn, *args)
    assert len(p.eqns) == 1, p
    eqn = p.eqns[0]
    own = cost_rules[eqn.primitive](eqn, Ctx(p, Costs()))
    return costs(p)[eqn.id], own


def test_si_and_str():
    assert si(96, "B") == "96 B"
    assert si(2000, "FLOP") == "2.0 kFLOP"
    assert si(1_500_000, "B") == "1.5 MB"
    assert cost_text(Cost(flops=2000, bytes=96), "en") == "2.0 kFLOP, 96 B"
    assert Cost(flops=30, bytes=120).intensity == 0.25
    assert Cost(flops=3, bytes=0).intensity is None


def test_elementwise():
    x = jnp.ones(8)
    for c in one(lambda a, b: a + b, x, x):
        assert (c.flops, c.bytes) == (8, 96)
        assert cost_text(c, "en") == "8 FLOP, 96 B"
    # A literal scalar operand is read once (4 bytes).
    for c in one(lambda a: a * 3.0, x):
        assert (c.flops, c.bytes) == (8, 68)


def test_zero_size_costs_no_flops():
    c, own = one(lambda x: x * 2., jnp.zeros((0, 3)))
    assert c.flops == 0 and own.flops == 0
    c, _ = one(lambda x, y: x + y, jnp.zeros((0, 3)), jnp.zeros((1, 3)))
    assert c.flops == 0

def test_transcendental():
    for c in one(jnp.sin, jnp.ones((2, 4))):
        assert (c.flops, c.bytes, c.transcendentals) == (8, 64, 8)


def test_reductions():
    x = jnp.ones((4, 8))
    # 8 values per row need 7 additions; 4 rows.  Bytes: 128 in + 16 out.
    for c in one(lambda a: jnp.sum(a, axis=1), x):
        assert (c.flops, c.bytes) == (28, 144)
    for c in one(lambda a: jnp.max(a, axis=1), x):
        assert (c.flops, c.bytes) == (28, 144)
    for c in one(lambda a: jnp.sum(a), x):
        assert (c.flops, c.bytes) == (31, 132)


def test_dot_general():
    for c in one(jnp.matmul, jnp.ones((4, 5)), jnp.ones((5, 6))):
        assert (c.flops, c.bytes) == (2 * 4 * 6 * 5, 80 + 120 + 96)
    # batched: 2 * B * M * N * K
    for c in one(lambda a, b: jnp.einsum("bij,bjk->bik", a, b), jnp.ones((3, 4, 5)), jnp.ones((3, 5, 6))):
        assert c.flops == 2 * 3 * 4 * 6 * 5
        assert c.bytes == 4 * (60 + 90 + 72)


def test_conv_general_dilated():
    x, w = jnp.ones((2, 3, 8, 8)), jnp.ones((4, 3, 3, 3))
    # out (2, 4, 6, 6); each output element is a dot of 3 * 3 * 3 = 27 terms.
    for c in one(lambda a, b: lax.conv_general_dilated(a, b, (1, 1), "VALID"), x, w):
        assert c.flops == 2 * (2 * 4 * 6 * 6) * 27 == 15552
        assert c.bytes == 4 * (2 * 3 * 64 + 4 * 27 + 2 * 4 * 36) == 3120


def test_movement_is_free_of_flops():
    for c in one(lambda a: a.T, jnp.ones((3, 4))):
        assert (c.flops, c.bytes) == (0, 96)


def test_scan_total_is_length_times_body():
    fn, args = SEEDS["func11"]
    c = costs(model.trace(fn, *args))
    scan = c["1"]
    assert scan.times == 16 and scan.per == c.totals["1/body"]
    # the body: mul, add, add (1 FLOP each) and two scalar converts (1 each, as XLA counts a convert)
    assert cost_text(scan) == "16 × (5 FLOP, 52 B) = 80 FLOP, 832 B"
    assert (c.total.flops, c.total.bytes) == (80, 900)


def test_fori_loop_with_literal_bounds_counts_trips():
    # A traced (but known) upper bound keeps fori_loop a while loop with literal start/stop.
    p = model.trace(lambda x: lax.fori_loop(0, jnp.int32(7), lambda i, c: c * 2., x), jnp.ones(3))
    c = costs(p)
    assert p.eqns[0].primitive == "while"
    # per iteration: cond `lt` (1 FLOP, 9 B) + body `add` i (1 FLOP, 12 B) + `mul` (3 FLOP, 28 B)
    assert cost_text(c["0"]) == "7 × (5 FLOP, 49 B) = 35 FLOP, 343 B"
    assert c.total.bound == "="


def test_while_with_hoisted_stop_counts_trips():
    def fn(x):
        n = jnp.array(9)
        return lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + 1, c[1] * 2.), (0, x))
    assert costs(model.trace(fn, jnp.ones(3)))["0"].times == 9


def test_fori_loop_with_static_bounds_is_a_scan():
    p = model.trace(lambda x: lax.fori_loop(0, 7, lambda i, c: c * 2., x), jnp.ones(3))
    assert p.eqns[0].primitive == "scan"
    assert cost_text(costs(p)["0"]) == "7 × (4 FLOP, 40 B) = 28 FLOP, 280 B"


def test_unknown_trip_count():
    fn, args = SEEDS["func10"]       # fori_loop(0, n) with n a traced argument
    c = costs(model.trace(fn, *args))
    assert cost_text(c["2"]) == "per iteration 50 FLOP, 537 B; unknown trip count"
    assert c.total.bound == "≥" and cost_text(c.total, "en").startswith("≥ ")


def test_cond_takes_most_expensive_branch():
    fn, args = SEEDS["func8"]
    c = costs(model.trace(fn, *args))
    assert cost_text(c["2"]) == "≤ 2 FLOP, 20 B"      # the costlier branch converts, then adds
    assert set(c.totals) == {"", "2/branch0", "2/branch1"}


def test_call_sums_its_body():
    fn, args = SEEDS["func12"]
    c = costs(model.trace(fn, *args))
    assert (c["1"].flops, c["1"].bytes) == (c.totals["1/call"].flops, c.totals["1/call"].bytes)


def test_table_cost_column_and_totals():
    fn, args = SEEDS["func1"]
    p = model.trace(fn, *args)
    table = p.table(cost=True)
    text = table.text()
    assert "       cost: 8 FLOP, 64 B" in text
    assert text.splitlines()[-1] == "total 31 FLOP, 264 B; intensity 0.12 FLOP/B"
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(table.html(), "html.parser")
    assert len(soup.select("tr.jl-row td.jl-cost")) == len(p.eqns)
    cells = [td.get_text() for td in soup.select_one("tr.jl-total").select("td")]
    # "total" said once; each measure kept with its unit (no line breaks between them)
    assert cells == ["total", "31\xa0FLOP, 264\xa0B; intensity 0.12\xa0FLOP/B"]
    assert "cost" not in p.table().text()


def test_table_totals_in_chinese():
    fn, args = SEEDS["func1"]
    table = model.trace(fn, *args).table(cost=True, lang="zh")
    assert table.text().splitlines()[-1] == "合计 31 FLOP，264 B；算术强度 0.12 FLOP/B"
    from bs4 import BeautifulSoup
    row = BeautifulSoup(table.html(), "html.parser").select_one("tr.jl-total")
    assert [td.get_text() for td in row.select("td")] == ["合计", "31\xa0FLOP，264\xa0B；算术强度 0.12\xa0FLOP/B"]


def test_table_totals_per_sub_jaxpr():
    fn, args = SEEDS["func11"]
    table = model.trace(fn, *args).table(cost=True)
    lines = table.text().splitlines()
    assert "      total 5 FLOP, 52 B; intensity 0.10 FLOP/B" in lines
    assert lines[-1] == "total 80 FLOP, 900 B; intensity 0.09 FLOP/B"
    assert len(table.html().split('class="jl-total"')) == 3


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_every_seed_has_a_cost_for_every_eqn(name):
    fn, args = SEEDS[name]
    p = model.trace(fn, *args)
    c = costs(p)
    assert {e.id for e in p.walk()} == set(c)
    assert all(isinstance(v, Cost) for v in c.values())


def test_estimate_near_xla_for_a_matmul():
    a, b = np.ones((32, 64), np.float32), np.ones((64, 16), np.float32)
    ours = costs(model.trace(jnp.matmul, a, b)).total
    xla = jax.jit(jnp.matmul).lower(a, b).compile().cost_analysis()
    xla = xla[0] if isinstance(xla, (list, tuple)) else xla
    if xla and "flops" in xla:
        assert ours.flops == pytest.approx(xla["flops"], rel=0.1)
