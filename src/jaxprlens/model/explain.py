"""One-line explanations, in English and Chinese, of what each jaxpr primitive does."""
from __future__ import annotations

import functools
import inspect
import re

from jaxprlens.model import _jax

__all__ = ["explain_rules", "explain"]

# primitive name (as ``eqn.primitive.name`` spells it in JAX 0.10.2) -> (English, Chinese)
explain_rules: dict[str, tuple[str, str]] = {
    # --- elementwise arithmetic ---
    "add": ("Adds the two operands elementwise.", "逐元素将两个操作数相加。"),
    "add_any": ("Adds two gradient contributions (autodiff's version of add).",
                "将两个梯度贡献相加（自动微分使用的 add）。"),
    "sub": ("Subtracts y from x elementwise (x - y).", "逐元素计算 x - y。"),
    "mul": ("Multiplies the two operands elementwise.", "逐元素将两个操作数相乘。"),
    "div": ("Divides x by y elementwise; integer division rounds toward zero.",
            "逐元素计算 x / y；整数除法向零取整。"),
    "rem": ("Remainder of x / y elementwise; the result takes the sign of x (like C fmod).",
            "逐元素求 x / y 的余数，符号与 x 相同（同 C 的 fmod）。"),
    "neg": ("Negates each element (-x).", "逐元素取相反数（-x）。"),
    "abs": ("Absolute value of each element (the modulus for complex numbers).",
            "逐元素取绝对值（复数取模）。"),
    "sign": ("Sign of each element: -1, 0 or 1 (x / |x| for complex numbers).",
             "逐元素取符号：-1、0 或 1（复数为 x / |x|）。"),
    "max": ("Elementwise maximum of x and y.", "逐元素取 x 与 y 中的较大值。"),
    "min": ("Elementwise minimum of x and y.", "逐元素取 x 与 y 中的较小值。"),
    "pow": ("Raises x to the power y elementwise (y is an array).", "逐元素计算 x 的 y 次幂（y 是数组）。"),
    "integer_pow": ("Raises x to the integer power `y`, a fixed parameter, elementwise.",
                    "逐元素计算 x 的整数次幂，指数 y 是固定参数。"),
    "square": ("Squares each element (x * x).", "逐元素求平方（x * x）。"),
    "sqrt": ("Square root of each element.", "逐元素求平方根。"),
    "rsqrt": ("Reciprocal square root of each element, 1 / sqrt(x).", "逐元素求平方根的倒数 1 / sqrt(x)。"),
    "cbrt": ("Cube root of each element.", "逐元素求立方根。"),
    "exp": ("Natural exponential e**x of each element.", "逐元素求自然指数 e**x。"),
    "exp2": ("Base-2 exponential 2**x of each element.", "逐元素求以 2 为底的指数 2**x。"),
    "log": ("Natural logarithm of each element.", "逐元素求自然对数。"),
    "log1p": ("log(1 + x) elementwise, accurate when x is near zero.",
              "逐元素计算 log(1 + x)，x 接近 0 时仍然精确。"),
    "expm1": ("exp(x) - 1 elementwise, accurate when x is near zero.",
              "逐元素计算 exp(x) - 1，x 接近 0 时仍然精确。"),
    "logistic": ("Sigmoid 1 / (1 + exp(-x)) of each element.", "逐元素计算 sigmoid 函数 1 / (1 + exp(-x))。"),
    "sin": ("Sine of each element (in radians).", "逐元素求正弦（弧度制）。"),
    "cos": ("Cosine of each element (in radians).", "逐元素求余弦（弧度制）。"),
    "tan": ("Tangent of each element (in radians).", "逐元素求正切（弧度制）。"),
    "asin": ("Arcsine of each element, in radians.", "逐元素求反正弦，结果为弧度。"),
    "acos": ("Arccosine of each element, in radians.", "逐元素求反余弦，结果为弧度。"),
    "atan": ("Arctangent of each element, in radians.", "逐元素求反正切，结果为弧度。"),
    "atan2": ("Arctangent of x / y elementwise, using both signs to pick the quadrant.",
              "逐元素求 x / y 的反正切，按两者的符号确定象限。"),
    "sinh": ("Hyperbolic sine of each element.", "逐元素求双曲正弦。"),
    "cosh": ("Hyperbolic cosine of each element.", "逐元素求双曲余弦。"),
    "tanh": ("Hyperbolic tangent of each element.", "逐元素求双曲正切。"),
    "asinh": ("Inverse hyperbolic sine of each element.", "逐元素求反双曲正弦。"),
    "acosh": ("Inverse hyperbolic cosine of each element.", "逐元素求反双曲余弦。"),
    "atanh": ("Inverse hyperbolic tangent of each element.", "逐元素求反双曲正切。"),
    "erf": ("Error function erf(x) of each element.", "逐元素求误差函数 erf(x)。"),
    "erfc": ("Complementary error function 1 - erf(x) of each element.", "逐元素求互补误差函数 1 - erf(x)。"),
    "erf_inv": ("Inverse error function of each element.", "逐元素求反误差函数。"),
    "bessel_i1e": ("Exponentially scaled modified Bessel function of order 1, exp(-|x|) * I1(x), elementwise.",
                   "逐元素求指数缩放的 1 阶修正贝塞尔函数 exp(-|x|) * I1(x)。"),
    "igammac": ("Regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x), elementwise.",
                "逐元素求正则化上不完全伽马函数 Q(a, x) = 1 - P(a, x)。"),
    "polygamma": ("Polygamma function of order m at x, elementwise (the m-th derivative of digamma).",
                  "逐元素求 m 阶多伽马函数（digamma 的 m 阶导数）。"),
    "zeta": ("Hurwitz zeta function zeta(x, q), elementwise.", "逐元素求 Hurwitz zeta 函数 zeta(x, q)。"),
    "lgamma": ("Log of the absolute value of the gamma function, elementwise.",
               "逐元素求 gamma 函数绝对值的对数。"),
    "digamma": ("Digamma function (the derivative of lgamma) of each element.",
                "逐元素求 digamma 函数（lgamma 的导数）。"),
    "floor": ("Rounds each element down to a whole number (the dtype stays float).",
              "逐元素向下取整（数据类型仍为浮点）。"),
    "ceil": ("Rounds each element up to a whole number (the dtype stays float).",
             "逐元素向上取整（数据类型仍为浮点）。"),
    "round": ("Rounds each element to the nearest whole number; `rounding_method` breaks ties.",
              "逐元素舍入到最近的整数值；rounding_method 决定恰在中间时的取法。"),
    "nextafter": ("Next representable float after x in the direction of y, elementwise.",
                  "逐元素求从 x 朝 y 方向的下一个可表示浮点数。"),
    "is_finite": ("True where the element is neither infinite nor NaN.", "元素既不是无穷大也不是 NaN 时为真。"),
    "real": ("Real part of each complex element.", "逐元素取复数的实部。"),
    "imag": ("Imaginary part of each complex element.", "逐元素取复数的虚部。"),
    "conj": ("Complex conjugate of each element.", "逐元素取复共轭。"),
    "complex": ("Builds complex numbers x + i*y elementwise.", "逐元素构造复数 x + i*y。"),
    "clamp": ("Clips x into [min, max] elementwise; operands min, x, max (lax.switch clamps its index so).",
              "逐元素把 x 钳制到 [min, max] 内；操作数顺序为 min、x、max（lax.switch 就这样钳制分支索引）。"),
    "select_n": ("Elementwise cases[which]: operands are which, then the cases; False picks case 0.",
                 "逐元素取 cases[which]；操作数依次为 which 和各 case，False 选第 0 个。"),
    "copy": ("Returns a copy of the operand with the same values.", "返回与操作数值相同的副本。"),
    "stop_gradient": ("Passes the operand through unchanged but blocks its gradient.",
                      "原样返回操作数，但阻断经过它的梯度。"),
    "reduce_precision": ("Rounds floats to `exponent_bits` / `mantissa_bits` of precision; dtype kept.",
                         "把浮点数舍入到 exponent_bits / mantissa_bits 指定的精度，dtype 不变。"),
    "convert_element_type": ("Casts the operand to `new_dtype`; `weak_type` marks a Python-scalar type.",
                             "把操作数转换为 new_dtype 类型；weak_type 表示弱类型（来自 Python 标量）。"),
    "bitcast_convert_type": ("Reinterprets each element's bits as `new_dtype` without changing them.",
                             "把每个元素的比特原样重新解释为 new_dtype 类型。"),
    # --- comparisons ---
    "eq": ("True where x == y, elementwise.", "逐元素比较，x == y 处为真。"),
    "ne": ("True where x != y, elementwise.", "逐元素比较，x != y 处为真。"),
    "lt": ("True where x < y, elementwise.", "逐元素比较，x < y 处为真。"),
    "le": ("True where x <= y, elementwise.", "逐元素比较，x <= y 处为真。"),
    "gt": ("True where x > y, elementwise.", "逐元素比较，x > y 处为真。"),
    "ge": ("True where x >= y, elementwise.", "逐元素比较，x >= y 处为真。"),
    # --- bitwise / logical ---
    "and": ("Bitwise AND elementwise (logical AND for booleans).", "逐元素按位与（布尔值为逻辑与）。"),
    "or": ("Bitwise OR elementwise (logical OR for booleans).", "逐元素按位或（布尔值为逻辑或）。"),
    "xor": ("Bitwise XOR elementwise (logical XOR for booleans).", "逐元素按位异或（布尔值为逻辑异或）。"),
    "not": ("Bitwise NOT of each element (logical NOT for booleans).", "逐元素按位取反（布尔值为逻辑非）。"),
    "population_count": ("Counts the 1 bits in each integer element.", "统计每个整数元素中为 1 的比特数。"),
    "clz": ("Counts the leading zero bits of each integer element.", "统计每个整数元素前导零比特的个数。"),
    "shift_left": ("Shifts the bits of x left by y places, elementwise.", "逐元素把 x 的比特左移 y 位。"),
    "shift_right_logical": ("Shifts the bits of x right by y places, filling with zeros.",
                            "逐元素把 x 的比特右移 y 位，高位补 0。"),
    "shift_right_arithmetic": ("Shifts the bits of x right by y places, copying the sign bit.",
                               "逐元素把 x 的比特右移 y 位，高位补符号位。"),
    # --- reductions and scans along an axis ---
    "reduce_sum": ("Sums the operand over the dimensions in `axes`.", "沿 axes 指定的维度对操作数求和。"),
    "reduce_prod": ("Multiplies the operand's elements over the dimensions in `axes`.",
                    "沿 axes 指定的维度对操作数求积。"),
    "reduce_max": ("Maximum of the operand over the dimensions in `axes`.", "沿 axes 指定的维度求最大值。"),
    "reduce_min": ("Minimum of the operand over the dimensions in `axes`.", "沿 axes 指定的维度求最小值。"),
    "reduce_and": ("True where all elements over `axes` are true (bitwise AND for integers).",
                   "沿 axes 指定的维度做逻辑与：全部为真才为真（整数为按位与）。"),
    "reduce_or": ("True where any element over `axes` is true (bitwise OR for integers).",
                  "沿 axes 指定的维度做逻辑或：任一为真即为真（整数为按位或）。"),
    "reduce_xor": ("XOR of the elements over the dimensions in `axes`.", "沿 axes 指定的维度对元素做异或。"),
    "argmax": ("Index of the largest element along `axes` (the first one on ties).",
               "沿 axes 求最大元素的下标（并列时取第一个）。"),
    "argmin": ("Index of the smallest element along `axes` (the first one on ties).",
               "沿 axes 求最小元素的下标（并列时取第一个）。"),
    "reduce": ("Reduces over `dimensions` with a custom combining function given as `jaxpr`.",
               "用 jaxpr 给出的合并函数沿 dimensions 指定的维度做归约。"),
    "reduce_window_sum": ("Sums each sliding window (window_dimensions, window_strides, padding).",
                          "对每个滑动窗口求和（窗口大小、步长、填充由参数给出）。"),
    "reduce_window_max": ("Maximum of each sliding window, as in max pooling.",
                          "求每个滑动窗口中的最大值，即最大池化。"),
    "reduce_window_min": ("Minimum of each sliding window.", "求每个滑动窗口中的最小值。"),
    "reduce_window": ("Reduces each sliding window with a custom combining function `jaxpr`.",
                      "用自定义合并函数 jaxpr 对每个滑动窗口做归约。"),
    "select_and_scatter": ("Per window: picks an element by `select_jaxpr`, combines the source value in by "
                           "`scatter_jaxpr`.",
                           "在每个窗口中用 `select_jaxpr` 选出一个元素，再用 `scatter_jaxpr` 把源值合并进去。"),
    "select_and_gather_add": ("In each window, picks the tangent at the position the select rule chooses "
                              "(the JVP of max pooling).",
                              "在每个窗口中取选择规则选中位置的切向量（最大池化的 JVP）。"),
    "select_and_scatter_add": ("Max-pooling gradient: adds each window's source value at the window's max.",
                               "最大池化的梯度：把每个窗口的 source 值加到该窗口最大元素的位置。"),
    "cumsum": ("Running sum along `axis` (from the end if `reverse`).",
               "沿 axis 求累加和（reverse 为真时从末尾开始）。"),
    "cumprod": ("Running product along `axis` (from the end if `reverse`).",
                "沿 axis 求累乘积（reverse 为真时从末尾开始）。"),
    "cummax": ("Running maximum along `axis` (from the end if `reverse`).",
               "沿 axis 求累计最大值（reverse 为真时从末尾开始）。"),
    "cummin": ("Running minimum along `axis` (from the end if `reverse`).",
               "沿 axis 求累计最小值（reverse 为真时从末尾开始）。"),
    "cumlogsumexp": ("Running log(sum(exp(x))) along `axis` (from the end if `reverse`).",
                     "沿 axis 累计计算 log(sum(exp(x)))（reverse 为真时从末尾开始）。"),
    # --- shapes, indexing and data movement ---
    "broadcast_in_dim": ("Broadcasts to `shape`; operand axis i becomes output axis broadcast_dimensions[i].",
                         "广播到 shape；操作数的第 i 维对应输出的第 broadcast_dimensions[i] 维。"),
    "reshape": ("Reshapes to `new_sizes`, keeping the elements in row-major order.",
                "按行主序把操作数重塑为 new_sizes 形状。"),
    "squeeze": ("Removes the size-1 axes listed in `dimensions`.", "删除 dimensions 中列出的长度为 1 的维度。"),
    "transpose": ("Permutes the axes: output axis i is operand axis permutation[i].",
                  "重排维度：输出的第 i 维是操作数的第 permutation[i] 维。"),
    "rev": ("Reverses the order of elements along the axes in `dimensions`.", "沿 dimensions 中的维度反转元素顺序。"),
    "concatenate": ("Joins the operands end to end along axis `dimension`.", "沿 dimension 维把各操作数首尾拼接。"),
    "pad": ("Pads with padding_value; `padding_config` gives (low, high, interior) per axis.",
            "用 padding_value 填充；padding_config 为每一维给出 (前, 后, 内部) 填充量。"),
    "slice": ("Takes the static slice start_indices:limit_indices (end excluded) with `strides`.",
              "取静态切片 start_indices:limit_indices（不含终点），步长为 strides。"),
    "dynamic_slice": ("Slices `slice_sizes` elements from runtime start indices (clamped in bounds).",
                      "从运行时给定的起点取 slice_sizes 大小的切片（起点会被钳制以免越界）。"),
    "dynamic_update_slice": ("Writes `update` into the operand at runtime start indices (clamped in bounds).",
                             "在运行时给定的起点把 update 写入操作数（起点会被钳制以免越界）。"),
    "gather": ("Collects slices of the operand at the given indices (the general form of x[idx]).",
               "按给定索引从操作数中收集切片（x[idx] 的一般形式）。"),
    "scatter": ("Returns the operand with `updates` written at the given indices (x.at[idx].set).",
                "返回在给定索引处写入 updates 后的操作数（x.at[idx].set）。"),
    "scatter-add": ("Returns the operand with `updates` added at the given indices (x.at[idx].add).",
                    "返回在给定索引处加上 updates 后的操作数（x.at[idx].add）。"),
    "scatter-sub": ("Returns the operand with `updates` subtracted at the given indices.",
                    "返回在给定索引处减去 updates 后的操作数。"),
    "scatter-mul": ("Returns the operand multiplied by `updates` at the given indices (x.at[idx].multiply).",
                    "返回在给定索引处乘以 updates 后的操作数（x.at[idx].multiply）。"),
    "scatter-min": ("Returns the operand with min(old, update) at the given indices (x.at[idx].min).",
                    "返回在给定索引处取 min(原值, updates) 后的操作数（x.at[idx].min）。"),
    "scatter-max": ("Returns the operand with max(old, update) at the given indices (x.at[idx].max).",
                    "返回在给定索引处取 max(原值, updates) 后的操作数（x.at[idx].max）。"),
    "iota": ("Creates an array of `shape` counting 0, 1, 2, ... along axis `dimension`.",
             "创建形状为 shape 的数组，沿 dimension 维依次为 0, 1, 2, ...。"),
    "sort": ("Sorts along `dimension`; the first `num_keys` operands are keys, the rest follow.",
             "沿 dimension 排序；前 num_keys 个操作数作为键，其余操作数随之重排。"),
    "split": ("Splits the operand along `axis` into pieces of the given `sizes`.",
              "沿 axis 把操作数切分为 sizes 指定大小的若干块。"),
    "top_k": ("Returns the `k` largest values along `axis` and their indices.", "返回沿 axis 最大的 k 个值及其下标。"),
    # --- linear algebra, convolution, FFT ---
    "ragged_dot_general": ("Matrix product over row groups of different sizes (`group_sizes`), as in "
                           "mixture-of-experts layers.",
                           "按大小不一的行组（`group_sizes`）做矩阵乘法，如混合专家层。"),
    "dot_general": ("Generalized matrix product: contracts and batches the axes in `dimension_numbers`.",
                    "广义矩阵乘法：按 dimension_numbers 对指定维度做收缩和批处理。"),
    "conv_general_dilated": ("Convolves lhs (the input) with rhs (the kernel), with strides, padding, dilation.",
                             "用 rhs（卷积核）对 lhs（输入）做卷积，支持步长、填充和膨胀。"),
    "cholesky": ("Cholesky factor L of a positive-definite matrix A, so that A = L @ L^H.",
                 "求正定矩阵 A 的 Cholesky 因子 L，使 A = L @ L^H。"),
    "triangular_solve": ("Solves a @ x = b for x, with a triangular (x @ a = b if not `left_side`).",
                         "求解 a @ x = b，a 为三角矩阵（left_side 为假时解 x @ a = b）。"),
    "lu": ("LU decomposition with partial pivoting; returns lu, pivots and permutation.",
           "带部分主元的 LU 分解；返回 lu、pivots 和 permutation。"),
    "qr": ("QR decomposition A = Q @ R, Q with orthonormal columns, R upper triangular.",
           "QR 分解 A = Q @ R，Q 的列正交归一，R 为上三角矩阵。"),
    "eigh": ("Eigenvectors and eigenvalues of a Hermitian (symmetric) matrix.",
             "求埃尔米特（对称）矩阵的特征向量和特征值。"),
    "eig": ("Eigenvalues (and optionally eigenvectors) of a general square matrix.",
            "求一般方阵的特征值（可选地也求特征向量）。"),
    "svd": ("Singular value decomposition A = U @ diag(s) @ Vh.", "奇异值分解 A = U @ diag(s) @ Vh。"),
    "custom_linear_solve": ("Solves a linear system with a user-supplied solver (lax.custom_linear_solve).",
                            "用用户提供的求解器解线性方程组（lax.custom_linear_solve）。"),
    "fft": ("Fast Fourier transform of kind `fft_type` over the trailing `fft_lengths` axes.",
            "对末尾 fft_lengths 对应的维度做 fft_type 类型的快速傅里叶变换。"),
    # --- control flow and calls ---
    "cond": ("Runs branches[index]; expects an index in range (lax.switch clamps first; lax.cond converts a bool).",
             "运行 branches[index]；索引须在范围内（lax.switch 先用 clamp 方程钳制索引，"
             "lax.cond 把布尔值转换为 0 或 1）。"),
    "while": ("Runs body_jaxpr while cond_jaxpr is true; operands: cond consts, body consts, carry.",
              "当 cond_jaxpr 为真时反复运行 body_jaxpr；操作数依次为条件常量、循环体常量和携带值。"),
    "scan": ("Loops over xs's leading axis (`length` steps) with a carry; operands: consts, carry, xs.",
             "沿 xs 的第 0 维把循环体运行 length 步，逐步传递携带值；操作数依次为常量、携带值、xs。"),
    "jit": ("Calls a jit-compiled sub-jaxpr (`name`) with the operands as its arguments.",
            "以操作数为实参调用经 jit 编译的子 jaxpr（name）。"),
    "closed_call": ("Calls the sub-jaxpr `call_jaxpr` with the operands as its arguments.",
                    "以操作数为实参调用子 jaxpr call_jaxpr。"),
    "custom_jvp_call": ("Runs call_jaxpr, a function with a custom derivative rule (jax.custom_jvp).",
                        "运行 call_jaxpr，该函数带有自定义求导规则（jax.custom_jvp）。"),
    "custom_vjp_call": ("Runs call_jaxpr, a function with custom forward/backward rules (jax.custom_vjp).",
                        "运行 call_jaxpr，该函数带有自定义前向/反向规则（jax.custom_vjp）。"),
    "custom_lin": ("Autodiff stand-in for a custom_vjp function; transposing it runs the user's bwd.",
                   "custom_vjp 函数在自动微分中的占位步骤；转置时运行用户的 bwd。"),
    "remat2": ("Runs `jaxpr` under jax.checkpoint: its values are recomputed in the backward pass.",
               "在 jax.checkpoint 下运行 jaxpr：反向传播时重新计算其中间值而不保存。"),
    "debug_print": ("Prints the operands with the format string `fmt` at run time (jax.debug.print).",
                    "运行时按格式串 fmt 打印操作数（jax.debug.print）。"),
    "debug_callback": ("Calls a Python `callback` at run time for its side effects (jax.debug.callback).",
                       "运行时调用 Python 回调 callback 以产生副作用（jax.debug.callback）。"),
    "pure_callback": ("Calls a side-effect-free Python function from compiled code (jax.pure_callback).",
                      "在编译后的代码中调用无副作用的 Python 函数（jax.pure_callback）。"),
    "io_callback": ("Calls a Python function with side effects from compiled code (io_callback).",
                    "在编译后的代码中调用有副作用的 Python 函数（io_callback）。"),
    "optimization_barrier": ("Returns the operands unchanged; the compiler may not move work across it.",
                             "原样返回操作数；编译器不能把计算移过这道屏障。"),
    "sharding_constraint": ("Returns the operand unchanged but asks the compiler to lay it out as `sharding`.",
                            "原样返回操作数，但要求编译器按 sharding 对它分片。"),
    "device_put": ("Copies the operands to the given devices or shardings; the values are unchanged.",
                   "把操作数复制到指定的设备或分片上，值不变。"),
    # --- refs (jax.new_ref, jax.ref) and Pallas kernels ---
    "new_ref": ("Makes a new mutable ref holding the operand's value (jax.new_ref); `b:Ref{f32[3]}` is its type.",
                "新建一个持有操作数值的可变引用（jax.new_ref）；`b:Ref{f32[3]}` 是它的类型。"),
    "empty_ref": ("Makes a new mutable ref of the given type whose contents are not yet set (jax.empty_ref).",
                  "新建一个给定类型、内容尚未设置的可变引用（jax.empty_ref）。"),
    "free_ref": ("Frees a ref: it may be read or written no more (jax.free_ref).",
                 "释放一个引用：此后不能再读写它（jax.free_ref）。"),
    "freeze": ("Turns a ref into an immutable array of its contents (jax.ref.freeze); the ref is used up.",
               "把引用变成其内容的不可变数组（jax.ref.freeze）；此后不能再使用该引用。"),
    "get": ("Reads a ref at an index, `c <- b[...]` (all of it) or `b[1]`, as a value (ref[idx], jax.ref.get).",
            "按索引读取引用的内容，`c <- b[...]`（全部）或 `b[1]`，得到一个值（ref[idx]、jax.ref.get）。"),
    "swap": ("Writes a value into a ref at an index, `b[...] <- d`; `g, b[...] <- b[...], d` also returns the old.",
             "把值写入引用的某个索引处，`b[...] <- d`；写作 `g, b[...] <- b[...], d` 时还返回原来的内容。"),
    "addupdate": ("Adds a value into a ref at an index in place, `b[1] += e` (jax.ref.addupdate); returns nothing.",
                  "就地把值加到引用的某个索引处，`b[1] += e`（jax.ref.addupdate）；没有结果。"),
    "run_state": ("Runs `jaxpr` on refs made from the operands; returns the refs' final contents (state made pure).",
                  "在由操作数生成的引用上运行 jaxpr，并返回这些引用最终的内容：把有状态的代码变成纯函数。"),
    "pallas_call": ("Runs the Pallas kernel `jaxpr` once per grid point, on refs to the blocks its block specs pick.",
                    "运行 Pallas 计算内核 jaxpr，每个网格点运行一次，作用于块规格选出的块的引用（pl.pallas_call）。"),
    "program_id": ("Inside a Pallas kernel: this run's index along grid axis `axis` (pl.program_id).",
                   "在 Pallas 内核中：本次运行在网格轴 axis 上的索引（pl.program_id）。"),
    "num_programs": ("Inside a Pallas kernel: the grid's size along axis `axis` (pl.num_programs).",
                     "在 Pallas 内核中：网格在轴 axis 上的大小（pl.num_programs）。"),
    "masked_load": ("Inside a Pallas kernel: reads a block of a ref (pl.load), with `other` where the mask is false.",
                    "在 Pallas 内核中：读取引用的一个块（pl.load），掩码为假处取 other。"),
    "masked_swap": ("Inside a Pallas kernel: writes a block into a ref where the mask holds (pl.store).",
                    "在 Pallas 内核中：在掩码为真处把一个块写入引用（pl.store）。"),
    # --- multi-device (named axes) ---
    "shard_map": ("Runs `jaxpr` on every device of `mesh`, each on its shard (in_specs / out_specs).",
                  "在 mesh 的每个设备上对各自的分片运行 jaxpr（按 in_specs / out_specs 切分）。"),
    "psum_invariant": ("Sums across devices along the named `axes`; the result is the same on every device.",
                       "沿命名的 `axes` 跨设备求和；每个设备上的结果相同。"),
    "pbroadcast": ("Marks a value as varying along the named `axes` (no data moves; a type change for shard_map).",
                   "把值标记为沿命名的 `axes` 变化（不移动数据；shard_map 的类型变化）。"),
    "psum": ("Sums the operand across devices along the named `axes` (an all-reduce).",
             "沿命名轴 axes 跨设备对操作数求和（all-reduce）。"),
    "pmax": ("Maximum of the operand across devices along the named `axes`.", "沿命名轴 axes 跨设备求操作数的最大值。"),
    "pmin": ("Minimum of the operand across devices along the named `axes`.", "沿命名轴 axes 跨设备求操作数的最小值。"),
    "all_gather": ("Gathers the operand from every device along `axis_name` into one array.",
                   "沿 axis_name 收集所有设备上的操作数，合成一个数组。"),
    "all_to_all": ("Splits the operand along split_axis and exchanges the pieces among devices.",
                   "沿 split_axis 切分操作数，并在设备之间交换各块。"),
    "reduce_scatter": ("Sums across devices on `axis_name`, then keeps one piece of the result per device.",
                       "沿 axis_name 跨设备求和，每个设备只保留结果中的一块。"),
    "ppermute": ("Sends each device's operand to another device following the (src, dst) pairs in `perm`.",
                 "按 perm 中的 (源, 目标) 对，把每个设备的操作数发送给另一个设备。"),
    "axis_index": ("Returns this device's index along the named axis `axis_name`.",
                   "返回当前设备在命名轴 axis_name 上的下标。"),
    "pvary": ("Marks the operands as varying across the named `axes`; values are unchanged.",
              "标记操作数在命名轴 axes 上因设备而异；值本身不变。"),
    # --- random numbers ---
    "random_seed": ("Makes a typed PRNG key from an integer seed; `impl` is the RNG algorithm.",
                    "由整数种子生成有类型的 PRNG 密钥；impl 为随机数算法。"),
    "random_split": ("Splits a PRNG key into new independent keys of the given `shape`.",
                     "把一个 PRNG 密钥拆分为 shape 形状的多个独立新密钥。"),
    "random_fold_in": ("Mixes an integer into a PRNG key, giving a new key.", "把一个整数混入 PRNG 密钥，得到新密钥。"),
    "random_bits": ("Draws random unsigned integers of `bit_width` bits and `shape` from a key.",
                    "用密钥生成形状为 shape、位宽为 bit_width 的随机无符号整数。"),
    "random_wrap": ("Wraps raw uint32 key data into a typed PRNG key (`impl` names the RNG).",
                    "把原始 uint32 数据包装成有类型的 PRNG 密钥（impl 指定算法）。"),
    "random_unwrap": ("Extracts the raw uint32 data from a typed PRNG key.",
                      "从有类型的 PRNG 密钥中取出原始 uint32 数据。"),
    "random_clone": ("Returns a copy of a PRNG key (jax.random.clone).", "返回 PRNG 密钥的副本（jax.random.clone）。"),
    "random_gamma": ("Samples Gamma(alpha) random values using the given keys.",
                     "用给定密钥从 Gamma(alpha) 分布中采样。"),
    "threefry2x32": ("Threefry-2x32 hash: the counter-based function behind JAX's default PRNG.",
                     "Threefry-2x32 哈希：JAX 默认 PRNG 所基于的计数器式函数。"),
    "rng_bit_generator": ("Draws random bits with an XLA RNG algorithm; returns the new key and the bits.",
                          "用 XLA 的随机算法生成随机比特；返回新密钥和随机比特。"),
}

_QUOTED = ("{}", "jax.lax 文档：{}")         # its docstring's first sentence, which is in English
_GENERIC = ("JAX primitive `{}` (see the jax.lax documentation).", "JAX 原语 `{}`（参见 jax.lax 文档）。")
# a primitive outside jax.lax: where it comes from, or that nothing loaded says so
_ELSEWHERE = ("Primitive `{}` of `{}` (see that module's documentation).", "`{1}` 的原语 `{0}`（参见该模块的文档）。")
_UNKNOWN = ("Primitive `{}`, from no module loaded now (not a jax.lax primitive).",
            "原语 `{}`，当前已加载的模块中没有它（不是 jax.lax 的原语）。")


def _first_sentence(doc: str) -> str:
    """First sentence of a docstring's first paragraph, with reST markup trimmed."""
    para = inspect.cleandoc(doc).split("\n\n", 1)[0]
    text = " ".join(para.split())
    text = re.sub(r":\w+:`", "`", text)          # :math:`x` -> `x`
    text = re.sub(r"`_(?!\w)", "`", text)  # `link`_ -> `link`
    sentence = re.split(r"(?<=[.!?])\s+", text, maxsplit=1)[0].strip()
    if sentence and sentence[-1] not in ".!?":
        sentence += "."
    return sentence


@functools.cache
def _docstring_line(primitive: str) -> str | None:
    """First docstring sentence of ``jax.lax.<primitive>`` (or a close spelling), else None."""
    from jax import lax

    stripped = primitive[:-2] if primitive.endswith("_p") else primitive
    candidates = dict.fromkeys([primitive, stripped, primitive.replace("-", "_"), stripped.replace("-", "_")])
    for name in candidates:
        if not name.isidentifier():
            continue
        obj = getattr(lax, name, None)
        if obj is None or not callable(obj):
            continue
        doc = getattr(obj, "__doc__", None)
        if not doc or not doc.strip():
            continue
        if not (inspect.isfunction(obj) or inspect.isbuiltin(obj)) and doc == type(obj).__doc__:
            continue  # e.g. a functools.partial whose doc describes partial itself
        line = _first_sentence(doc)
        if line:
            return line
    return None


def explain(primitive: str, lang: str = "en") -> str:
    """One-line explanation of ``primitive`` in ``lang`` ("en" or "zh"; anything else means English)."""
    zh = isinstance(lang, str) and lang.lower().startswith("zh")
    rule = explain_rules.get(primitive)
    if rule is not None:
        return rule[1] if zh else rule[0]
    line = _docstring_line(primitive)      # jax.lax's function of that name (pvary lives in jax core)
    if line:
        return _QUOTED[1 if zh else 0].format(line)
    home = _jax.primitive_home(primitive)
    if home == "jax.lax":
        return _GENERIC[1 if zh else 0].format(primitive)
    if home is None:
        return _UNKNOWN[1 if zh else 0].format(primitive)
    return _ELSEWHERE[1 if zh else 0].format(primitive, home)
