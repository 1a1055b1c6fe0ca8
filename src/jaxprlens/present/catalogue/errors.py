"""The model's and engines' errors (model.errors.KeyedError, model.program.TraceError): tracing,
transforms, paths and groups, devices.

The shape of an entry: ``catalogue/__init__.py``.
"""

WORDS = {
    # the model's and engines' errors (model.errors.KeyedError, model.program.TraceError), worded here
    "trace_static_range": ("static_argnums has {i}, but the call has {n} positional argument(s)",
                           "static_argnums 含有 {i}，但调用只有 {n} 个位置实参"),
    "trace_unhashable": ("argument `{name}` (position {i}) is static, but its value of type {kind} is not hashable; "
                         "static arguments must be hashable Python values (int, str, tuple): take position {i} out of "
                         "static_argnums to trace it as an array",
                         "实参 `{name}`（位置 {i}）是静态的，但它的 {kind} 类型的值不可哈希；静态实参必须是可哈希的 "
                         "Python 值（int、str、tuple）：请把位置 {i} 移出 static_argnums，把它当作数组 trace"),
    "trace_static_arrays": ("argument `{name}` (position {i}) is static, but its value of type {kind} holds {n} "
                            "array(s), and a static argument must be a hashable Python value: take position {i} out "
                            "of static_argnums (jaxprlens traces its arrays and holds its other leaves fixed, as "
                            "eqx.filter_jit does); a jax.jit'd function that takes it wants eqx.filter_jit, or "
                            "`params, static = eqx.partition(model, eqx.is_array)`; for a flax nnx Module, nnx.jit or "
                            "`graphdef, state = nnx.split(model)`",
                            "实参 `{name}`（位置 {i}）是静态的，但它的 {kind} 类型的值持有 {n} 个数组，而静态实参必须"
                            "是可哈希的 Python 值：请把位置 {i} 移出 static_argnums（jaxprlens 会 trace 其中的数组，"
                            "并像 eqx.filter_jit 那样固定其余叶子）；接收它的 jax.jit 函数应改用 eqx.filter_jit，或 "
                            "`params, static = eqx.partition(model, eqx.is_array)`；flax nnx 的 Module 请用 nnx.jit "
                            "或 `graphdef, state = nnx.split(model)`"),
    "trace_jit_non_array": ("`{fn}` is jax.jit'd, and its argument at `{path}` is of type {kind}, not an array: "
                            "jax.jit traces every leaf of its arguments. For an Equinox module use eqx.filter_jit in "
                            "place of jax.jit, or split it with `params, static = eqx.partition(model, eqx.is_array)` "
                            "and pass `static` as a static argument; for a flax nnx Module use nnx.jit, or `graphdef, "
                            "state = nnx.split(model)` and pass `state`",
                            "`{fn}` 经过 jax.jit，而它位于 `{path}` 的实参是 {kind} 类型，不是数组：jax.jit 会 trace 实"
                            "参的每个叶子。Equinox 模块请用 eqx.filter_jit 代替 jax.jit，或用 `params, static = "
                            "eqx.partition(model, eqx.is_array)` 拆分，并把 `static` 作为静态实参传入；flax nnx 的 "
                            "Module 请用 nnx.jit，或 `graphdef, state = nnx.split(model)` 后传入 `state`"),
    "trace_non_array": ("a value of type {kind} reached JAX where it needs an array (often a module's field that is "
                        "no array, passed to a jax.jit'd function): for an Equinox module use eqx.filter_jit or "
                        "eqx.partition(model, eqx.is_array); for a flax nnx Module, nnx.jit or nnx.split(model)",
                        "类型为 {kind} 的值到了 JAX 需要数组的地方（常见于把模块中不是数组的字段传给 jax.jit 函数）："
                        "Equinox 模块请用 eqx.filter_jit 或 eqx.partition(model, eqx.is_array)；flax nnx 的 Module 请"
                        "用 nnx.jit 或 nnx.split(model)"),
    "trace_not_callable": ("{kind} object is not callable; pass a function, e.g. trace(f, x)",
                           "{kind} 对象不可调用；请传入函数，例如 trace(f, x)"),
    "tf_unknown": ("unknown transformation {name} (must be one of {names})",
                   "未知变换 {name}（必须是以下之一：{names}）"),
    "tf_flag": ("{flag} does not apply to {name}; it applies to {takes}", "{flag} 不适用于 {name}；它适用于 {takes}"),
    "tf_static_arg": ("argument {i} is static (static_argnums), so {name} cannot take it; choose a traced argument",
                      "实参 {i} 是静态的（static_argnums），{name} 不能作用于它；请选择一个被 trace 的实参"),
    "tf_argnums_range": ("argnums has {i}, but the call has {n} positional argument(s); choose from {valid}",
                         "argnums 含有 {i}，但调用只有 {n} 个位置实参；请从 {valid} 中选择"),
    "tf_not_float": ("argument {j} is not floating point, so it has no derivative; choose argnums from {valid}",
                     "实参 {j} 不是浮点数，没有导数；请从 {valid} 中选择 argnums"),
    "tf_no_float_at_all": ("argument {j} is not floating point, so it has no derivative; no argument is, so pass "
                           "floats (e.g. jnp.arange(3.) or x.astype(jnp.float32))",
                           "实参 {j} 不是浮点数，没有导数；所有实参都不是浮点数，请传入浮点数（例如 jnp.arange(3.) 或"
                           " x.astype(jnp.float32)）"),
    "tf_no_float": ("no floating-point argument to differentiate", "没有可求导的浮点实参"),
    "tf_in_axes_text": ("--in-axes takes integers or None separated by commas, such as 0,None; got {text}",
                        "--in-axes 接受以逗号分隔的整数或 None，例如 0,None；收到的是 {text}"),
    "tf_in_axes_count": ("in_axes has {k} entries but the call has {n} positional argument(s); give one axis (or "
                         "None) per argument",
                         "in_axes 有 {k} 项，但调用有 {n} 个位置实参；请为每个实参给出一个轴（或 None）"),
    "tf_maps_none": ("in_axes maps no argument; give at least one axis, e.g. 0",
                     "in_axes 没有映射任何实参；请至少给出一个轴，例如 0"),
    "arg_where": ("argument {i}{path}", "实参 {i}{path}"),
    "kwarg_where": ("argument `{i}`{path}", "实参 `{i}`{path}"),
    "tf_batch_axis": ("cannot build a batch: in_axes puts {where}'s batch axis at {ax}, but it has {ndim} "
                      "dimension(s), so the axis must be between {lo} and {hi}",
                      "无法构建批：in_axes 把{where} 的批轴放在 {ax}，但它只有 {ndim} 维，所以轴必须在 {lo} 到 {hi} "
                      "之间"),
    "tf_no_axis": ("cannot vmap over the arguments as written: {where} is {type}, which has no axis {ax} to map; give "
                   "it a batch axis, map it with None in --in-axes, or drop --batched to stack the call as one example",
                   "无法对所写的实参做 vmap：{where} 是 {type}，没有可映射的轴 {ax}；请给它一个批轴、在 --in-axes 中"
                   "用 None 不映射它，或去掉 --batched，把这次调用当作一个样本来堆叠"),
    "tf_sizes_differ": ("cannot vmap over the arguments as written: the batch sizes differ ({sizes}); make them "
                        "agree, or map an argument with None in --in-axes",
                        "无法对所写的实参做 vmap：批大小不一致（{sizes}）；请让它们一致，或在 --in-axes 中用 None 不"
                        "映射某个实参"),
    "tf_size_of": ("{where} has {n} along axis {ax}", "{where} 沿轴 {ax} 有 {n} 个"),
    "tf_refused": ("{jax} refuses {what}: {reason}{hint}", "{jax} 拒绝 {what}：{reason}{hint}"),
    "tf_hint_has_aux": (" When the rest is auxiliary output, say so: has_aux=True (%%jaxpr --has-aux)",
                        " 若其余输出是辅助输出，请写明：has_aux=True（%%jaxpr --has-aux）"),
    "tf_no_function": ("this program has no Python function (made by from_jaxpr?); trace it with jaxprlens.trace(f, "
                       "*args) to transform it",
                       "这个程序没有 Python 函数（由 from_jaxpr 得到？）；请用 jaxprlens.trace(f, *args) trace 它，再做"
                       "变换"),
    "tf_no_call": ("cannot rebuild the call of {fn} ({error}); trace it again with jaxprlens.trace(f, *args)",
                   "无法重建对 {fn} 的调用（{error}）；请用 jaxprlens.trace(f, *args) 重新 trace"),
    "tf_options": ("{name} does not take {extra} (it takes {allowed})", "{name} 不接受 {extra}（它接受 {allowed}）"),
    "tf_no_options": ("{name} does not take {extra} (it takes no options)",
                      "{name} 不接受 {extra}（它不接受任何选项）"),
    "path_unknown": ("unknown path {path} (must be one of {shown})", "未知路径 {path}（必须是以下之一：{shown}）"),
    "path_no_nested": ("unknown path {path}: this program has no nested jaxprs",
                       "未知路径 {path}：这个程序没有嵌套的 jaxpr"),
    "group_unknown": ("unknown group {group} (must be one of {shown})", "未知调用 {group}（必须是以下之一：{shown}）"),
    "group_none": ("unknown group {group}: this program has no inlined calls",
                   "未知调用 {group}：这个程序没有被内联的调用"),
    "find_no_eqn": ("no equation {eqn}", "没有方程 {eqn}"),
    "graph_negative": ("depth and max_nodes must be >= 0 (got depth={depth}, max_nodes={max_nodes})",
                       "depth 和 max_nodes 必须 >= 0（收到 depth={depth}，max_nodes={max_nodes}）"),
    "int_list": ("{option} takes comma-separated integers such as 0 or 0,1; got {text}",
                 "{option} 接受以逗号分隔的整数，例如 0 或 0,1；收到的是 {text}"),
    "device_type": ("device must be a string such as 'cpu' or 'gpu:1', got {kind}",
                    "设备必须是字符串，例如 'cpu' 或 'gpu:1'，收到的是 {kind}"),
    "device_unknown": ("unknown device {spec} (write platform[:index], e.g. cpu, gpu:1, tpu:0); devices here: "
                       "{listing}",
                       "未知设备 {spec}（请写成 platform[:index]，例如 cpu、gpu:1、tpu:0）；这里的设备：{listing}"),
    "device_absent": ("no {platform} device here for {spec}; devices here: {listing}",
                      "这里没有 {platform} 设备，无法使用 {spec}；这里的设备：{listing}"),
    "device_index": ("no device {spec}: there are {n} {platform} device(s) (indices 0..{last}); devices here: "
                     "{listing}",
                     "没有设备 {spec}：这里有 {n} 个 {platform} 设备（序号 0..{last}）；这里的设备：{listing}"),
}
