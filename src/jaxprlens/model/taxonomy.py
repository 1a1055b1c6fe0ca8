"""One primitive taxonomy: what kind of work each primitive does.  The graph colours by it, the cost
model picks its rule by it, and the table's explanations are keyed by the same primitive names."""
from __future__ import annotations

# class -> primitive names as JAX spells them (``eqn.primitive.name``), JAX 0.10 to 0.12
_CLASSES = {
    "elementwise": """add sub mul div rem max min neg abs sign floor ceil round is_finite not and or xor eq ne
        lt le gt ge select_n clamp integer_pow square nextafter conj real imag complex shift_left
        shift_right_logical shift_right_arithmetic population_count clz add_any reduce_precision
        convert_element_type""",
    "transcendental": """exp exp2 log log1p expm1 sin cos tan tanh logistic sqrt rsqrt cbrt pow atan2 erf erfc
        erf_inv lgamma digamma asin acos atan sinh cosh asinh acosh atanh bessel_i0e bessel_i1e igamma igammac
        random_gamma_grad polygamma zeta""",
    "reduction": """reduce_sum reduce_max reduce_min reduce_prod reduce_and reduce_or reduce_xor argmax argmin
        reduce reduce_window reduce_window_sum reduce_window_max reduce_window_min""",
    "cumulative": "cumsum cumprod cummax cummin cumlogsumexp",
    "contraction": "dot_general conv_general_dilated ragged_dot_general",
    "data movement": """broadcast_in_dim reshape transpose slice dynamic_slice dynamic_update_slice concatenate
        pad squeeze bitcast_convert_type copy rev gather scatter scatter-add
        scatter-sub scatter-mul scatter-min scatter-max select_and_scatter select_and_scatter_add
        select_and_gather_add iota sharding_constraint device_put sort split optimization_barrier
        stop_gradient""",
    "collective": "psum psum_invariant pmax pmin all_gather reduce_scatter all_to_all ppermute pbroadcast",
    "call": """jit pjit closed_call core_call custom_jvp_call custom_vjp_call custom_vjp_call_jaxpr remat2
        checkpoint custom_lin""",
    "control flow": "cond while scan shard_map xla_pmap",
}
primitive_class: dict[str, str] = {p: c for c, names in _CLASSES.items() for p in names.split()}

# names the installed JAX may not register: other releases' names (pjit became jit in 0.7; pmap traces
# to shard_map since 0.8; closed_call is gone in 0.11) or primitives of modules not imported by default
ELSEWHERE = {"pjit", "xla_pmap", "custom_vjp_call_jaxpr", "core_call", "closed_call", "psum_invariant", "pbroadcast",
             "custom_lin", "remat2", "checkpoint", "random_gamma_grad"}

# the graph draws five kinds of node
GRAPH_KIND = {"elementwise": "elementwise", "transcendental": "elementwise", "reduction": "reduction",
              "cumulative": "reduction", "contraction": "contraction", "data movement": "data movement",
              "collective": "data movement", "call": "control flow", "control flow": "control flow"}


def class_of(primitive: str, has_subs: bool = False) -> str:
    """``"elementwise"``, ``"reduction"``, ... or ``"other"`` (``"call"`` for an unknown primitive with a body)."""
    return primitive_class.get(primitive, "call" if has_subs else "other")


def graph_kind(primitive: str, has_subs: bool = False) -> str:
    return GRAPH_KIND.get(class_of(primitive, has_subs), "other")


def names(cls: str) -> list[str]:
    return _CLASSES[cls].split()
