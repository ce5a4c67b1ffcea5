"""The operator table: one row per elementwise operator, the single source of truth.

The Python functions and dunders, the C opcode list (generated at build time by
``kernels_c/build_kernels.py``), the docs' operator table and the tests are all driven
from ``OPS``.  This module imports nothing but the standard library, because the build
script loads it before NumPy or the package exist.

Each row says:

* ``name``: the internal op name (also the Array API function name where one exists);
* ``arity``: number of tensor inputs;
* ``kinds``: the dtype kinds the op takes: ``b`` bool, ``i`` signed int, ``u`` unsigned
  int, ``f`` real float (float16 is computed in float32 and rounded once, unless ``h`` is
  there too: then the op has a float16 body of its own, on the bits);
* ``result``: ``"same"`` (the promoted input dtype) or ``"bool"``;
* ``cplx``, ``cplx_result``, ``cc``: complex operands (NumPy's function computing them
  eagerly, the result rule, and the C body when the kernel computes them instead);
* ``c``: the C body per kind group, an expression in ``a``, ``b``, ``c`` (the inputs,
  of C type ``T``) and ``p0``, ``p1`` (double attributes); ``UT`` is the unsigned type of
  the same width, ``TMIN``/``TMAX``/``BITS`` its limits, ``F`` is ``f`` or empty for the
  float helpers (``lt_floor##F``...); empty for the float kinds of an op of the library's
  own math;
* ``math``: the own math function computing a float op (``ltm_<math>_f32`` ... in
  ``kernels_c/lt_<family>.h``), and ``ulp`` its measured error bounds (also given for
  ``pow``, whose own math runs as its ``f_chunk``);
* every op is exact: each result is one correctly rounded IEEE operation, a comparison, a
  bit operation, a documented conversion or one of the library's own math functions;
* ``attrs``: names of the op's scalar attributes (passed to C as ``p0``, ``p1``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# C element type of each dtype code.  The order is the dtype code used by C.
DTYPES = (
    # name,     C type,     unsigned twin, kind, bits
    ("bool", "uint8_t", "uint8_t", "b", 8),
    ("int8", "int8_t", "uint8_t", "i", 8),
    ("int16", "int16_t", "uint16_t", "i", 16),
    ("int32", "int32_t", "uint32_t", "i", 32),
    ("int64", "int64_t", "uint64_t", "i", 64),
    ("uint8", "uint8_t", "uint8_t", "u", 8),
    ("uint16", "uint16_t", "uint16_t", "u", 16),
    ("uint32", "uint32_t", "uint32_t", "u", 32),
    ("uint64", "uint64_t", "uint64_t", "u", 64),
    ("float16", "uint16_t", "uint16_t", "h", 16),  # stored as bits; computed in float32
    ("float32", "float", "uint32_t", "f", 32),
    ("float64", "double", "uint64_t", "f", 64),
    # complex: interleaved (re, im) pairs of the component type (lt_c64/lt_c128 in lt_math.h)
    ("complex64", "lt_c64", "uint64_t", "c", 64),
    ("complex128", "lt_c128", "uint64_t", "c", 128),
)
DTYPE_CODE = {row[0]: code for code, row in enumerate(DTYPES)}
# dtypes with op bodies in C (float16 only where an op has an "h" body of its own; complex
# ones where an op has a ``cc`` body)
COMPUTE_DTYPES = tuple(row[0] for row in DTYPES if row[3] != "c")
COMPLEX_DTYPES = tuple(row[0] for row in DTYPES if row[3] == "c")
# the component dtype of each complex dtype
COMPLEX_PART = {"complex64": "float32", "complex128": "float64"}


@dataclass(frozen=True)
class OpDef:
    name: str
    arity: int
    kinds: str
    c: dict
    result: str = "same"
    attrs: tuple = ()
    doc: str = ""
    onnx: str = ""  # the ONNX operator it implements, for the docs
    # complex operands: the NumPy function that computes the op for them (eagerly, not
    # fused yet), and the result dtype rule ("same", "real" or "bool"); "" if not served
    cplx: str = ""
    cplx_result: str = "same"
    # complex operands computed in the kernel instead (fused, exact): the C body, an
    # expression in ``a``, ``b`` (of C type ``T``, lt_c64 or lt_c128, fields ``re``, ``im``)
    # with ``R`` the component type and ``##C`` the width suffix of the helpers
    # (``ltm_cdiv##C`` is ltm_cdiv_f32 or ltm_cdiv_f64, kernels_c/math/lt_complex.h); the
    # result follows ``cplx_result``; "chunk:FN" names a function doing the whole chunk,
    # FN(n, o, a[, b]).  "" leaves the op on the eager ``cplx`` path.
    cc: str = ""
    # the library's own math function computing the op for float32/float64 (kernels_c/lt_*.h:
    # ltm_<math>_f32 ...); "" when the C body above is used
    math: str = ""
    # for math ops (and pow): the measured error bound in ulps per dtype in exact mode ("float32",
    # "float64"; 0.5 means correctly rounded) and in fast mode ("fast", both dtypes);
    # float16 results are the float32 result rounded once more
    ulp: tuple = ()
    # for a ``cc`` function: the bound of each part of a complex64 and a complex128 result, in
    # ulps of that part (both modes; a subnormal part within 1 of its ulps; expm1's real part
    # plus 2^-52 of its terms' size near e^x cos y = 1; docs/complex.md); pow's is normwise, in
    # u = eps/2, of exp(b log a) (complex128: |b log a| < 2^18), its integer exponents being
    # NumPy's repeated products
    cc_ulp: tuple = ()
    # a C function running the whole float loop itself, (n, o, a, b, exact): for an op
    # whose common case vectorises only when every element of the chunk takes it (pow's
    # exponents 2 and 0.5), or that runs a second pass over some elements (pow's accurate path);
    # "" for the generated loop over the float body
    f_chunk: str = ""
    # where the op is public, as a user writes it (None: ``lt.<name>``, a function made from
    # this row by lazytensor/_api/elementwise.py; else the wrapper that records it)
    expose: str = None
    # the Tensor operators it implements: "add" is __add__, __radd__ and __iadd__, "lt" is
    # __lt__, "neg" is __neg__ (lazytensor/_api/tensor_methods.py)
    dunders: tuple = ()
    # the NumPy ufunc it computes ("" where NumPy has none)
    ufunc: str = ""
    # ns per element (fast mode, exact mode) of its float32 op function over a chunk in L1
    # (tools/op_costs.py), which the rules of lazytensor/_engine/cost.py read; SIMPLE for the
    # one-instruction integer and bool ops
    cost: tuple = ()

    @property
    def spelling(self) -> str:
        """How a user calls it."""
        return self.expose or f"lt.{self.name}"

    def ulp_bound(self, key: str) -> float:
        return dict(self.ulp)[key]

    def c_body(self, kind: str) -> str:
        for kinds, body in self.c.items():
            if kind in kinds:
                return body
        raise KeyError(f"{self.name} has no C body for kind {kind!r}")


_INT = "iu"
_NUM = "iuf"
SIMPLE = (0.05, 0.05)     # the cost of a one-instruction op, not measured one by one

OPS_LIST = [
    # --- arithmetic --------------------------------------------------------------
    OpDef("add", 2, _NUM, {_INT: "(T)((UT)a + (UT)b)", "f": "a + b"},
          doc="Sum; integers wrap around.", onnx="Add", cplx="add", cc="(T){a.re + b.re, a.im + b.im}",
          dunders=("add",), ufunc="add", cost=(0.035, 0.046)),
    OpDef("subtract", 2, _NUM, {_INT: "(T)((UT)a - (UT)b)", "f": "a - b"},
          doc="Difference; integers wrap around.", onnx="Sub", cplx="subtract", cc="(T){a.re - b.re, a.im - b.im}",
          dunders=("sub",), ufunc="subtract", cost=(0.036, 0.048)),
    OpDef("multiply", 2, _NUM, {_INT: "(T)((UT)a * (UT)b)", "f": "a * b"},
          doc="Product; integers wrap around.", onnx="Mul", cplx="multiply", cc="chunk:ltm_cmul##C_chunk",
          dunders=("mul",), ufunc="multiply", cost=(0.037, 0.051)),
    OpDef("divide", 2, "f", {"f": "a / b"},
          doc="True division (integer inputs are first cast to the default float).",
          onnx="Div", cplx="divide", cc="ltm_cdiv##C(a, b)",
          dunders=("truediv",), ufunc="divide", cost=(0.23, 0.24)),
    OpDef("div_trunc", 2, _NUM, {"i": "LT_IDIV_TRUNC(T, UT, TMIN, a, b)",
                                 "u": "(T)(b == 0 ? 0 : a / (b == 0 ? 1 : b))",
                                 "f": "a / b"},
          doc="ONNX Div: integers truncate toward zero, x/0 is 0, MIN/-1 is MIN.",
          onnx="Div",
          expose="lt.onnx.Div", cost=(0.23, 0.24)),
    OpDef("floor_divide", 2, _NUM, {"i": "LT_IDIV_FLOOR(T, UT, TMIN, a, b)",
                                    "u": "(T)(b == 0 ? 0 : a / (b == 0 ? 1 : b))",
                                    "f": "lt_floordiv##F(a, b)"},
          f_chunk="ltm_floordiv##F_chunk",
          doc="Floor division; integer x//0 is 0.", onnx="",
          dunders=("floordiv",), ufunc="floor_divide", cost=(0.94, 0.96)),
    OpDef("remainder", 2, _NUM, {"i": "LT_IMOD_FLOOR(T, a, b)",
                                 "u": "(T)(b == 0 ? 0 : a % (b == 0 ? 1 : b))",
                                 "f": "lt_mod_floor##F(a, b)"},
          f_chunk="ltm_mod_floor##F_chunk",
          doc="Remainder with the sign of the divisor; integer x%0 is 0.",
          onnx="Mod(fmod=0)",
          dunders=("mod",), ufunc="remainder", cost=(0.69, 0.71)),
    OpDef("fmod", 2, _NUM, {"i": "LT_IMOD_TRUNC(T, a, b)",
                            "u": "(T)(b == 0 ? 0 : a % (b == 0 ? 1 : b))",
                            "f": "lt_fmod##F(a, b)"},
          f_chunk="ltm_fmod##F_chunk",
          doc="Remainder with the sign of the dividend (C fmod); integer x%0 is 0.",
          onnx="Mod(fmod=1)",
          expose="lt.onnx.Mod(fmod=1)", ufunc="fmod", cost=(0.59, 0.61)),
    OpDef("pow", 2, _NUM, {"i": "(T)lt_ipow_i64((int64_t)a, (int64_t)b)",
                           "u": "(T)lt_ipow_u64((uint64_t)a, (uint64_t)b)",
                           "f": "ltm_pow##F(a, b)"},
          f_chunk="ltm_pow##F_chunk", ulp=(("float32", 0.5), ("float64", 1), ("fast", 1)),
          doc="Power; integers by repeated squaring with wrap-around; floats by the library's "
              "own pow (kernels_c/math/lt_pow.h): float32 correctly rounded, float64 within "
              "1 ulp, the same bits on every kernel path, in both modes.",
          onnx="Pow", cplx="power", cc="chunk:ltm_cf_pow##C_chunk", cc_ulp=(1.01, 1.5),
          dunders=("pow",), ufunc="power", cost=(6, 5.7)),
    # float max/min: "a NaN a wins, else a NaN b, else the larger", as lt_max/lt_min
    # (lt_math.h): one max/min instruction and a select of a NaN a once vectorised
    OpDef("maximum", 2, _NUM, {_INT: "(a > b ? a : b)",
                               "f": "lt_max##F(a, b)"},
          doc="Larger operand; NaN wins; on a tie the second operand is returned.",
          onnx="Max",
          ufunc="maximum", cost=(0.045, 0.079)),
    OpDef("minimum", 2, _NUM, {_INT: "(a < b ? a : b)",
                               "f": "lt_min##F(a, b)"},
          doc="Smaller operand; NaN wins; on a tie the second operand is returned.",
          onnx="Min",
          ufunc="minimum", cost=(0.053, 0.079)),
    # lt.clip with both bounds: minimum(maximum(a, b), c) in one pass, the same results
    OpDef("clip", 3, _NUM, {_INT: "(((a > b ? a : b) < c) ? (a > b ? a : b) : c)",
                            "f": "lt_clip##F(a, b, c)"},
          doc="minimum(maximum(a, b), c) with their rules (NaN wins; if b > c, c).",
          onnx="Clip",
          expose="lt.clip", cost=(0.082, 0.13)),
    OpDef("copysign", 2, "f", {"f": "LT_BUILTIN(copysign, F)(a, b)"},
          doc="Magnitude of a with the sign of b.",
          ufunc="copysign", cost=(0.036, 0.055)),
    OpDef("nextafter", 2, "fh", {"f": "lt_nextafter##F(a, b)", "h": "lt_nextafter_f16(a, b)"},
          doc="The next representable value after a toward b (float16 steps in float16).",
          ufunc="nextafter", cost=(0.18, 0.2)),
    OpDef("atan2", 2, "f", {}, math="atan2",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)),
          doc="Four-quadrant arctangent of a/b.",
          ufunc="arctan2", cost=(0.35, 5.2)),
    OpDef("hypot", 2, "f", {}, math="hypot",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)),
          doc="sqrt(a*a + b*b) without undue overflow; float32 correctly rounded.",
          ufunc="hypot", cost=(1.1, 1.1)),
    OpDef("logaddexp", 2, "f", {}, math="logaddexp",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)),
          doc="log(exp(a) + exp(b)), as max + log1p(exp(-|a - b|)) in double-double.",
          ufunc="logaddexp", cost=(4, 5.5)),
    # --- unary numeric -----------------------------------------------------------
    OpDef("negative", 1, _NUM, {_INT: "(T)(0 - (UT)a)", "f": "-a"},
          doc="Negation; integers wrap around.", onnx="Neg", cplx="negative", cc="(T){-a.re, -a.im}",
          dunders=("neg",), ufunc="negative", cost=(0.035, 0.052)),
    OpDef("abs", 1, _NUM, {"i": "(T)(a < 0 ? 0 - (UT)a : (UT)a)", "u": "a",
                           "f": "LT_BUILTIN(fabs, F)(a)"},
          doc="Absolute value; abs(MIN) wraps to MIN.", onnx="Abs", cplx="abs", cc="chunk:ltm_cabs##C_chunk", cplx_result="real",
          dunders=("abs",), ufunc="absolute", cost=(0.035, 0.045)),
    OpDef("sign", 1, _NUM, {"i": "(T)((a > 0) - (a < 0))", "u": "(T)(a > 0)",
                            "f": "(a > 0 ? (T)1 : a < 0 ? (T)-1 : a == 0 ? (T)0 : a)"},
          doc="-1, 0 or +1; both zeros give +0; NaN gives NaN.", onnx="Sign", cplx="sign", cc="ltm_cf_sign##C(a)",
          cc_ulp=(0.501, 0.501),
          ufunc="sign", cost=(0.12, 0.22)),
    OpDef("square", 1, _NUM, {_INT: "(T)((UT)a * (UT)a)", "f": "a * a"},
          doc="a * a.", cplx="square", cc="ltm_csquare##C(a)",
          ufunc="square", cost=(0.041, 0.043)),
    OpDef("reciprocal", 1, "f", {"f": "(T)1 / a"}, doc="1 / a.", onnx="Reciprocal", cplx="reciprocal", cc="ltm_creciprocal##C(a)",
          ufunc="reciprocal", cost=(0.23, 0.24)),
    OpDef("sqrt", 1, "f", {"f": "LT_BUILTIN(sqrt, F)(a)"},
          doc="Square root (IEEE, correctly rounded).", onnx="Sqrt", cplx="sqrt", cc="ltm_cf_sqrt##C(a)",
          cc_ulp=(0.501, 0.501),
          ufunc="sqrt", cost=(0.28, 0.28)),
    OpDef("floor", 1, "f", {"f": "lt_floor##F(a)"}, doc="Round toward -inf.", onnx="Floor",
          ufunc="floor", cost=(0.11, 0.14)),
    OpDef("ceil", 1, "f", {"f": "lt_ceil##F(a)"}, doc="Round toward +inf.", onnx="Ceil",
          ufunc="ceil", cost=(0.11, 0.14)),
    OpDef("trunc", 1, "f", {"f": "lt_trunc##F(a)"}, doc="Round toward zero.",
          ufunc="trunc", cost=(0.092, 0.14)),
    OpDef("round", 1, "f", {"f": "lt_round##F(a)"},
          doc="Round half to even; keeps the sign of zero.", onnx="Round", cplx="round",
          ufunc="rint", cost=(0.067, 0.09)),
    # --- transcendentals: the library's own math (kernels_c/lt_<family>.h) ---------
    OpDef("exp", 1, "f", {}, onnx="Exp", cplx="exp", cc="chunk:ltm_cf_exp##C_chunk", math="exp",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 1)), cc_ulp=(0.501, 1.02),
          ufunc="exp", cost=(0.25, 1.4)),
    OpDef("expm1", 1, "f", {}, cplx="expm1", cc="ltm_cf_expm1##C(a)", math="expm1",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 1.02),
          ufunc="expm1", cost=(0.35, 1.7)),
    OpDef("log", 1, "f", {}, onnx="Log", cplx="log", cc="ltm_cf_log##C(a)", math="log",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 1)), cc_ulp=(0.501, 1),
          ufunc="log", cost=(0.66, 1.7)),
    OpDef("log1p", 1, "f", {}, cplx="log1p", cc="ltm_cf_log1p##C(a)", math="log1p",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 1),
          ufunc="log1p", cost=(0.45, 1.9)),
    OpDef("log2", 1, "f", {}, cplx="log2", cc="ltm_cf_log2##C(a)", math="log2",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 1),
          ufunc="log2", cost=(0.66, 1.8)),
    OpDef("log10", 1, "f", {}, cplx="log10", cc="ltm_cf_log10##C(a)", math="log10",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)), cc_ulp=(0.501, 1),
          ufunc="log10", cost=(0.72, 1.8)),
    OpDef("sin", 1, "f", {}, cplx="sin", cc="ltm_cf_sin##C(a)", math="sin",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 1.02),
          ufunc="sin", cost=(1.1, 3)),
    OpDef("cos", 1, "f", {}, cplx="cos", cc="ltm_cf_cos##C(a)", math="cos",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 1.02),
          ufunc="cos", cost=(0.98, 2.8)),
    OpDef("tan", 1, "f", {}, cplx="tan", cc="ltm_cf_tan##C(a)", math="tan",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)), cc_ulp=(0.501, 2.5),
          ufunc="tan", cost=(1.7, 3.2)),
    OpDef("asin", 1, "f", {}, cplx="arcsin", cc="ltm_cf_asin##C(a)", math="asin",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 0.501),
          ufunc="arcsin", cost=(0.25, 4.7)),
    OpDef("acos", 1, "f", {}, cplx="arccos", cc="ltm_cf_acos##C(a)", math="acos",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 0.501),
          ufunc="arccos", cost=(0.26, 5.3)),
    OpDef("atan", 1, "f", {}, cplx="arctan", cc="ltm_cf_atan##C(a)", math="atan",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 0.501),
          ufunc="arctan", cost=(0.38, 3.7)),
    OpDef("sinh", 1, "f", {}, cplx="sinh", cc="ltm_cf_sinh##C(a)", math="sinh",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)), cc_ulp=(0.501, 1.02),
          ufunc="sinh", cost=(0.66, 2.2)),
    OpDef("cosh", 1, "f", {}, cplx="cosh", cc="ltm_cf_cosh##C(a)", math="cosh",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 1.02),
          ufunc="cosh", cost=(0.49, 1.8)),
    OpDef("tanh", 1, "f", {}, onnx="Tanh", cplx="tanh", cc="ltm_cf_tanh##C(a)", math="tanh",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)), cc_ulp=(0.501, 2.5),
          ufunc="tanh", cost=(0.4, 2.2)),
    OpDef("asinh", 1, "f", {}, cplx="arcsinh", cc="ltm_cf_asinh##C(a)", math="asinh",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 0.501),
          ufunc="arcsinh", cost=(0.83, 4.5)),
    OpDef("acosh", 1, "f", {}, cplx="arccosh", cc="ltm_cf_acosh##C(a)", math="acosh",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)), cc_ulp=(0.501, 0.501),
          ufunc="arccosh", cost=(3.5, 5.4)),
    OpDef("atanh", 1, "f", {}, cplx="arctanh", cc="ltm_cf_atanh##C(a)", math="atanh",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)), cc_ulp=(0.501, 0.501),
          ufunc="arctanh", cost=(2, 3.6)),
    OpDef("erf", 1, "f", {}, onnx="Erf", math="erf",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)),
          cost=(0.88, 6.9)),
    # --- activations ---------------------------------------------------------------
    OpDef("sigmoid", 1, "f", {}, onnx="Sigmoid", math="sigmoid",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 2)),
          doc="1 / (1 + exp(-a)), relative accuracy kept far below zero.",
          expose="lt.nn.sigmoid", cost=(0.33, 1.7)),
    OpDef("silu", 1, "f", {}, math="silu",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)),
          doc="a * sigmoid(a) in one rounding, accurate where sigmoid(a) underflows; "
              "silu(-inf) = -0.",
          expose="lt.nn.silu", cost=(0.41, 1.9)),
    OpDef("relu", 1, "if", {"i": "(a < 0 ? (T)0 : a)",
                            "f": "lt_max##F(a, (T)0)"},
          doc="max(a, 0) with Max's rules: relu(-0) is +0, NaN passes.", onnx="Relu",
          expose="lt.nn.relu", cost=(0.079, 0.098)),
    OpDef("leaky_relu", 1, "f", {"f": "(a < 0 ? (T)p0 * a : a)"}, attrs=("alpha",),
          doc="a < 0 ? alpha * a : a.", onnx="LeakyRelu",
          expose="lt.nn.leaky_relu", cost=(0.038, 0.055)),
    OpDef("hard_sigmoid", 1, "f", {"f": "lt_clamp01##F((T)p0 * a + (T)p1)"},
          attrs=("alpha", "beta"), doc="clamp(alpha * a + beta, 0, 1), two roundings.",
          onnx="HardSigmoid",
          expose="lt.nn.hard_sigmoid", cost=(0.16, 0.2)),
    OpDef("hardswish", 1, "f", {"f": "a * lt_clamp01##F(a * (T)(1.0 / 6.0) + (T)0.5)"},
          doc="a * clamp(a / 6 + 1/2, 0, 1) with the constant 1/6 rounded to T.",
          onnx="HardSwish",
          expose="lt.nn.hardswish", cost=(0.15, 0.18)),
    OpDef("gelu", 1, "f", {}, onnx="Gelu", math="gelu",
          ulp=(("float32", 0.5), ("float64", 1), ("fast", 3)),
          doc="a * Phi(a) (erf form; erfc for negative a, never 1 + erf); gelu(-inf) = -0.",
          expose="lt.nn.gelu", cost=(0.7, 2)),
    OpDef("gelu_tanh", 1, "f", {}, math="gelu_tanh",
          ulp=(("float32", 1), ("float64", 1), ("fast", 3)),
          onnx="Gelu(approximate=tanh)",
          doc="Tanh form of Gelu through the sigmoid identity; gelu(-inf) = -0.",
          expose='lt.nn.gelu(approximate="tanh")', cost=(0.68, 1.7)),
    # --- classification ------------------------------------------------------------
    OpDef("isnan", 1, "f", {"f": "(a != a)"}, result="bool", cplx="isnan", cc="(a.re != a.re || a.im != a.im)", cplx_result="bool",
          ufunc="isnan", cost=(0.074, 0.074)),
    OpDef("isinf", 1, "f", {"f": "(LT_BUILTIN(fabs, F)(a) == (T)INFINITY)"}, result="bool", cplx="isinf", cc="(__builtin_fabs(a.re) == (R)INFINITY || __builtin_fabs(a.im) == (R)INFINITY)", cplx_result="bool",
          ufunc="isinf", cost=(0.074, 0.074)),
    OpDef("isfinite", 1, "f", {"f": "(LT_BUILTIN(fabs, F)(a) < (T)INFINITY)"},
          result="bool", cplx="isfinite", cc="(__builtin_fabs(a.re) < (R)INFINITY && __builtin_fabs(a.im) < (R)INFINITY)", cplx_result="bool",
          ufunc="isfinite", cost=(0.074, 0.074)),
    OpDef("signbit", 1, "f", {"f": "(LT_BUILTIN(signbit, F)(a) != 0)"}, result="bool",
          ufunc="signbit", cost=(0.074, 0.074)),
    # --- comparisons ---------------------------------------------------------------
    OpDef("equal", 2, "b" + _NUM, {"b" + _NUM: "(a == b)"}, result="bool", onnx="Equal", cplx="equal", cc="(a.re == b.re && a.im == b.im)", cplx_result="bool",
          dunders=("eq",), ufunc="equal", cost=(0.074, 0.074)),
    OpDef("not_equal", 2, "b" + _NUM, {"b" + _NUM: "(a != b)"}, result="bool", cplx="not_equal", cc="(a.re != b.re || a.im != b.im)", cplx_result="bool",
          dunders=("ne",), ufunc="not_equal", cost=(0.074, 0.074)),
    OpDef("less", 2, _NUM, {_NUM: "(a < b)"}, result="bool", onnx="Less",
          dunders=("lt",), ufunc="less", cost=(0.074, 0.074)),
    OpDef("less_equal", 2, _NUM, {_NUM: "(a <= b)"}, result="bool",
          onnx="LessOrEqual",
          dunders=("le",), ufunc="less_equal", cost=(0.074, 0.074)),
    OpDef("greater", 2, _NUM, {_NUM: "(a > b)"}, result="bool", onnx="Greater",
          dunders=("gt",), ufunc="greater", cost=(0.074, 0.074)),
    OpDef("greater_equal", 2, _NUM, {_NUM: "(a >= b)"}, result="bool",
          onnx="GreaterOrEqual",
          dunders=("ge",), ufunc="greater_equal", cost=(0.074, 0.074)),
    # --- logical and bitwise -------------------------------------------------------
    OpDef("logical_and", 2, "b", {"b": "(a & b)"}, onnx="And",
          ufunc="logical_and", cost=SIMPLE),
    OpDef("logical_or", 2, "b", {"b": "(a | b)"}, onnx="Or",
          ufunc="logical_or", cost=SIMPLE),
    OpDef("logical_xor", 2, "b", {"b": "(a ^ b)"}, onnx="Xor",
          ufunc="logical_xor", cost=SIMPLE),
    OpDef("logical_not", 1, "b", {"b": "(a ^ 1)"}, onnx="Not",
          ufunc="logical_not", cost=SIMPLE),
    OpDef("bitwise_and", 2, "b" + _INT, {"b" + _INT: "(T)(a & b)"},
          dunders=("and",), ufunc="bitwise_and", cost=SIMPLE),
    OpDef("bitwise_or", 2, "b" + _INT, {"b" + _INT: "(T)(a | b)"},
          dunders=("or",), ufunc="bitwise_or", cost=SIMPLE),
    OpDef("bitwise_xor", 2, "b" + _INT, {"b" + _INT: "(T)(a ^ b)"},
          dunders=("xor",), ufunc="bitwise_xor", cost=SIMPLE),
    OpDef("bitwise_invert", 1, "b" + _INT, {"b": "(a ^ 1)", _INT: "(T)~a"},
          dunders=("invert",), ufunc="invert", cost=SIMPLE),
    OpDef("bitwise_left_shift", 2, _INT,
          {_INT: "(T)((b < 0 || (uint64_t)b >= BITS) ? 0 : (UT)a << b)"},
          doc="Left shift; a shift of the width or more (or negative) gives 0.",
          dunders=("lshift",), ufunc="left_shift", cost=SIMPLE),
    OpDef("bitwise_right_shift", 2, _INT,
          {"i": "(T)((b < 0 || (uint64_t)b >= BITS) ? (a < 0 ? -1 : 0) : a >> b)",
           "u": "(T)((uint64_t)b >= BITS ? 0 : a >> b)"},
          doc="Arithmetic right shift; a shift of the width or more gives 0 or -1.",
          dunders=("rshift",), ufunc="right_shift", cost=SIMPLE),
]

OPS = {op.name: op for op in OPS_LIST}

# Ops that are not in the per-dtype table: 'cast' (every dtype pair), 'copy' and
# 'where' (by element size), and 'widen' (float16 to float32 inside a float16 op, which
# keeps a NaN's sign and payload: only op results are made canonical).  Their opcodes
# follow the table's, in kernel_entries() order.


# ops of complex operands only, not in the table: the real part (a real result), the
# imaginary part, the conjugate (lazytensor/_api/elementwise.py records them); and
# "complex", the complex value of two real parts (the sums of lazytensor/_api/statistical.py)
COMPLEX_PARTS = ("real", "imag", "conj")


# divide whose divisor is one value over the whole kernel gets its own function (fast mode
# multiplies by the reciprocal; kernels_c/math/lt_math.h, lt_div_scalar)
DIVIDE_BY_SCALAR_DTYPES = ("float32", "float64")


# divide_by_scalar, round, the addition of a scalar (a zero point) and a saturating cast to a
# small integer, fused into one function when a kernel computes that chain (lower.py,
# _fuse_quantize): astype(clip(round(x / scale) + zero_point, lo, hi), uint8) and the like
QUANTIZE_DTYPES = ("uint8", "int8", "uint16", "int16")


# Fused bodies: chains of ops that activation functions written out by hand compute, each one C
# function (kernels_c/build_kernels.py) that lower.py puts in the chain's place
# (lazytensor/_engine/bodies.py).  Each op of the chain keeps its own C body or math function,
# its rounding and (exact mode) its canonical NaN, in the order written: the same bits as the
# ops one instruction at a time, in one pass over the chunk instead of one per op (exact
# mode: one pass between the math functions that work a chunk at a time).  ``expr`` is the
# chain over the operands x, a, b, c (any values of the dtype; a scalar register where an op
# needs one, as divide_by_scalar's divisor); the names are the table's.
def parse_fused(text: str):
    """A fused body's expression as a tree: an operand name, or (op name, child, ...)."""
    pos = 0

    def node():
        nonlocal pos
        j = pos
        while j < len(text) and (text[j].isalnum() or text[j] == "_"):
            j += 1
        name, pos = text[pos:j], j
        if pos < len(text) and text[pos] == "(":
            pos += 1
            children = [node()]
            while text[pos] == ",":
                pos += 1
                while text[pos] == " ":
                    pos += 1
                children.append(node())
            if text[pos] != ")":
                raise ValueError(f"fused body {text!r}: ')' expected at {pos}")
            pos += 1
            return (name, *children)
        if name not in FUSED_OPERANDS:
            raise ValueError(f"fused body {text!r}: unknown operand {name!r}")
        return name

    tree = node()
    if pos != len(text):
        raise ValueError(f"fused body {text!r}: text left at {pos}")
    return tree


@dataclass(frozen=True)
class FusedBody:
    name: str
    expr: str
    doc: str
    tree: object = field(init=False, compare=False)   # parse_fused(expr), parsed once

    def __post_init__(self):
        object.__setattr__(self, "tree", parse_fused(self.expr))


FUSED_OPERANDS = ("x", "a", "b", "c")
FUSED_DTYPES = ("float32", "float64")
FUSED_BODIES = (
    FusedBody("gelu_erf_div", "multiply(multiply(a, x), add(b, erf(divide_by_scalar(x, c))))",
              "0.5 * x * (1 + erf(x / sqrt(2)))"),
    FusedBody("gelu_erf_div_xa", "multiply(multiply(x, a), add(b, erf(divide_by_scalar(x, c))))",
              "x * 0.5 * (1 + erf(x / sqrt(2)))"),
    FusedBody("gelu_erf_mul", "multiply(multiply(a, x), add(b, erf(multiply(x, c))))",
              "0.5 * x * (1 + erf(x * (1 / sqrt(2))))"),
    FusedBody("gelu_erf_mul_xa", "multiply(multiply(x, a), add(b, erf(multiply(x, c))))",
              "x * 0.5 * (1 + erf(x * (1 / sqrt(2))))"),
    FusedBody("gelu_tanh_inner", "multiply(a, add(x, multiply(multiply(multiply(b, x), x), x)))",
              "sqrt(2 / pi) * (x + 0.044715 * x * x * x), the tanh-form Gelu's argument"),
    FusedBody("gelu_tanh_outer", "multiply(multiply(a, x), add(b, tanh(c)))",
              "0.5 * x * (1 + tanh(c)), the tanh-form Gelu around its argument c"),
    FusedBody("silu_div", "divide(x, add(a, exp(negative(x))))", "x / (1 + exp(-x))"),
    FusedBody("sigmoid_div", "divide(a, add(b, exp(negative(x))))", "1 / (1 + exp(-x))"),
)
FUSED = {body.name: body for body in FUSED_BODIES}


def entry_ops(entry) -> list:
    """The (op, dtype) pairs a kernel entry computes: a fused body's ops, else itself."""
    op, dt = entry
    if op.startswith("fused_") and op[6:] in FUSED:
        return [(name, dt) for name in fused_ops(FUSED[op[6:]].tree)]
    return [entry]


def entry_main_op(entry):
    """The (op, dtype) standing for an entry where a rule asks about one op function (does it
    write the outputs, read the inputs first, how many passes): a fused body's costliest op
    by the table's figures, else the entry itself."""
    parts = entry_ops(entry)
    if len(parts) == 1:
        return parts[0]
    return max(parts, key=lambda e: OPS[e[0]].cost if e[0] in OPS else SIMPLE)


def fused_ops(tree) -> list:
    """The op names of a fused body's tree, children before parents."""
    if isinstance(tree, str):
        return []
    return [op for child in tree[1:] for op in fused_ops(child)] + [tree[0]]


def kernel_entries():
    """Every (op, dtype) pair that gets a C function, in opcode order.

    Used by the build script to emit the C function table and by the Python side to
    find an opcode; both walk this same list, so the numbers agree by construction
    (and ``kernel.py`` checks the C names at import).
    """
    entries = []
    for op in OPS_LIST:
        for dt in COMPUTE_DTYPES:
            kind = DTYPES[DTYPE_CODE[dt]][3]
            if kind in op.kinds:
                entries.append((op.name, dt))
    for size in (1, 2, 4, 8):
        entries.append(("copy", f"x{size}"))
    for size in (1, 2, 4, 8):
        entries.append(("where", f"x{size}"))
    for src in COMPUTE_DTYPES:
        for dst in COMPUTE_DTYPES:
            entries.append(("cast", f"{src}_{dst}"))
    entries.append(("widen", "float16"))
    for dt in DIVIDE_BY_SCALAR_DTYPES:
        entries.append(("divide_by_scalar", dt))
    for dt in QUANTIZE_DTYPES:
        entries.append(("quantize", f"float32_{dt}"))
    # complex: the table's ops with a ``cc`` body, the parts, and the casts from and to
    # every dtype
    for op in OPS_LIST:
        if op.cc:
            entries += [(op.name, dt) for dt in COMPLEX_DTYPES]
    entries += [(part, dt) for part in COMPLEX_PARTS for dt in COMPLEX_DTYPES]
    entries += [("complex", dt) for dt in COMPLEX_DTYPES]   # (re, im) of the part dtype
    entries += [("copy", "x16"), ("where", "x16")]
    entries += [(f"fused_{body.name}", dt) for body in FUSED_BODIES for dt in FUSED_DTYPES]
    every = COMPUTE_DTYPES + COMPLEX_DTYPES
    entries += [("cast", f"{src}_{dst}") for src in every for dst in every
                if src in COMPLEX_DTYPES or dst in COMPLEX_DTYPES]
    return entries


def entry_name(op: str, suffix: str) -> str:
    return f"lt_op_{op}_{suffix}"
