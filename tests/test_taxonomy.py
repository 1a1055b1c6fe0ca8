"""One primitive taxonomy for graph colours and cost rules, naming only real JAX primitives."""
import sys

import jax
import jax.experimental.shard_map  # registers its primitives
import jax.experimental.pallas  # registers pallas_call and the kernel primitives
from jax.extend.core import Primitive

from jaxprlens.engine import cost
from jaxprlens.views.graph import render
from jaxprlens.model.taxonomy import ELSEWHERE, class_of, graph_kind, primitive_class


def _registered() -> set:
    return {v.name for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("jax")
            for v in list(vars(m).values()) if isinstance(v, Primitive)}


def test_every_name_is_a_jax_primitive():
    unknown = set(primitive_class) - _registered() - ELSEWHERE
    assert not unknown, f"not primitives of this JAX (typos such as copy_p or scatter_add?): {sorted(unknown)}"


def test_graph_and_cost_read_the_same_table():
    for prim in ("add_any", "convert_element_type", "scatter-add", "copy", "cumsum", "psum"):
        kind = graph_kind(prim)
        assert render.kind_of(prim) == kind
        assert prim in cost.cost_rules, prim
    assert class_of("add_any") == class_of("add") == "elementwise"
    assert class_of("convert_element_type") == "elementwise"
    assert class_of("scatter-add") == "data movement" and graph_kind("scatter-add") == "data movement"
    assert class_of("my_custom_hop", has_subs=True) == "call" and graph_kind("my_custom_hop", True) == "control flow"
    assert class_of("my_custom_prim") == "other" and graph_kind("my_custom_prim") == "other"
    assert jax.lax.add_p.name == "add"


def test_explanations_are_keyed_by_the_same_names():
    from jaxprlens.model import _jax
    from jaxprlens.model.explain import _ELSEWHERE, _GENERIC, _UNKNOWN, explain, explain_rules
    assert not set(explain_rules) - _registered() - ELSEWHERE
    # every classified primitive the installed JAX has is explained (by the table or its docstring)
    missing = [p for p in set(primitive_class) & _registered()
               if p not in explain_rules and explain(p) in (_GENERIC[0].format(p), _UNKNOWN[0].format(p),
                                                            _ELSEWHERE[0].format(p, _jax.primitive_home(p)))]
    assert not missing, f"no explanation for {sorted(missing)}"
