"""cffi build script: generates the op functions from lazytensor/_engine/ops.py and compiles the
kernel into ``lazytensor._kernels`` (API mode).  Run by ``pip install`` through
``cffi_modules`` in setup.py; nothing is compiled at run time.

Every op body of the table is written once in C and instantiated here per dtype; the
cast table is generated from one rule per (source kind, destination kind).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import subprocess
import sys
import sysconfig
import tempfile

from cffi import FFI

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _load_ops():
    # Load the table by path: the package itself cannot be imported before it is built.
    spec = importlib.util.spec_from_file_location(
        "_lt_ops_for_build", os.path.join(ROOT, "lazytensor", "_engine", "ops.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


ops = _load_ops()
sys.path.insert(0, HERE)
import build_fused  # noqa: E402  (beside this script; needs nothing of the package)
_ROW = {row[0]: row for row in ops.DTYPES}

# Exact-mode contract: IEEE semantics, no contraction of a*b+c into an FMA, no fast math.
# -fno-math-errno only lets sqrt become the instruction, and -fno-trapping-math lets the
# compiler turn selects into blends (we never enable FP traps); neither changes a value.
EXTRA_COMPILE_ARGS = ["-O3", "-std=c11", "-ffp-contract=off", "-fno-math-errno",
                      "-fno-trapping-math",
                      "-fexcess-precision=standard", "-pthread",
                      "-Wall", "-Wno-unused-variable", "-Wno-unused-function",
                      "-Wno-unused-local-typedefs"]

# Table lookups in the vectorised loops (2^(j/128) of the exp family, the erf family's
# coefficients) as gather instructions: gcc 12's generic tuning loads each lane on its own
# (two instructions per lane to move the index out, one load, then inserts).  The same
# values, so the same bits; exact-mode exp, silu, gelu and exp(-x*x)*log1p|x| of 10^7
# float32 ran 0.80-0.93x the time (benchmarks/bench_ab.py).  A gcc option only: left out
# where the compiler refuses it.  On an AMD EPYC (Zen 3, AVX2 path) it cuts both ways
# (`python tools/op_costs.py --path avx2` with and without it, exact mode, ns per element):
# erf 17-19 with it against 11 without, tanh 3.9-4.7 against 3.3, but the tanh-form gelu 3.3
# against 6.0; exp, log, sigmoid, silu and gelu within noise.  Kept.
GATHER_TUNING = "-mtune-ctrl=use_gather_2parts,use_gather_4parts,use_gather"


def _compiler_accepts(flag: str) -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "probe.c")
        with open(src, "w") as f:
            f.write("int lt_probe;\n")
        try:
            done = subprocess.run([*cc, flag, "-c", src, "-o", os.path.join(tmp, "probe.o")],
                                  capture_output=True)
        except OSError:
            return False
    return done.returncode == 0


if _compiler_accepts(GATHER_TUNING):
    EXTRA_COMPILE_ARGS.append(GATHER_TUNING)


def _limits(name):
    _, ctype, _, kind, bits = _ROW[name]
    if kind == "i":
        return f"(({ctype})(-{2 ** (bits - 1) - 1}LL - 1))", f"(({ctype}){2 ** (bits - 1) - 1}LL)"
    if kind in "ub":
        return "0", f"(({ctype}){2 ** bits - 1}ULL)"
    return "0", "0"


def _c_expr(body, dt):
    _, ctype, utype, kind, bits = _ROW[dt]
    sfx = "f" if dt == "float32" else ""
    tmin, tmax = _limits(dt)
    body = re.sub(r"LT_LIBM\((\w+),\s*F\)", lambda m: m.group(1) + sfx, body)
    body = re.sub(r"LT_BUILTIN\((\w+),\s*F\)", lambda m: "__builtin_" + m.group(1) + sfx, body)
    body = body.replace("##F", sfx)
    body = re.sub(r"\bTMIN\b", tmin, body)
    body = re.sub(r"\bTMAX\b", tmax, body)
    body = re.sub(r"\bBITS\b", str(bits), body)
    return body


# The library's own math functions: one header of functions per family, pasted into every
# kernel-path region (so each is compiled for that instruction set), and one header of
# constant tables, included once.  A family header defines, per function NAME, the exact
# forms ltm_NAME_f32 / ltm_NAME_f64 (and optionally ltm_NAME_f32_chunk, a whole-chunk
# vectorised form) and the fast forms ltm_NAME_f32_fast / ltm_NAME_f64_fast (optionally
# ltm_NAME_f32_fast_chunk).
MATH_FAMILIES = ("exp", "exp32_fma", "exp_fast", "log", "log32_fma", "erf", "gelu32", "trig",
                 "trig32_fma", "erf32_fma", "misc", "pow", "complex", "cfunc", "cfunc_inv", "cpow")
# exp32_fma: the float32 exact exp, sigmoid, silu (their FMA paths' first passes); log32_fma:
# the same for the float32 exact log, log1p, log2 and log10 (after log: its no-FMA pass is
# their fallback); gelu32: the float32 exact Gelu's accurate path and
# per-path first passes, on erf's; trig32_fma: the float32 exact sin, cos and tan's (after
# trig, whose chunk is their fallback); erf32_fma: the float32 fast erf's pass on the FMA
# paths (on trig32_fma's float vectors); exp_fast: the exp family's float32 fast forms, in a
# header of their own (no file over 1000 lines); pow
# after exp and log, whose cores it calls; complex: the complex arithmetic (the ``cc`` bodies'
# helpers, after misc's hypot); cfunc: the complex functions (exp, log ...) on the real
# families' cores; cfunc_inv: the inverse functions, on cfunc's helpers; cpow: complex pow,
# on cfunc's


def _math_headers():
    """(data headers, concatenated function text) of the math families."""
    data, text = [], []
    for fam in MATH_FAMILIES:
        fn = os.path.join(HERE, "math", f"lt_{fam}.h")
        if os.path.exists(os.path.join(HERE, "math", f"lt_{fam}_data.h")):
            data.append(f"lt_{fam}_data.h")
        with open(fn) as f:
            text.append(f"/* ---- {os.path.basename(fn)} ---- */\n" + f.read())
    return data, "\n".join(text)


MATH_DATA_HEADERS, MATH_TEXT = _math_headers()


def _math_defined(name: str) -> bool:
    if re.search(rf"\b{name}\s*\(", MATH_TEXT):
        return True
    # LT_F32_TWO_PASS(base, ...) (lt_dd.h), ltm_exp_two_pass(base, ...), LTM_VEC_TWO_PASS(base,
    # ...) (lt_exp.h) and LTM_EXP32_TWO_PASS(base, ...) (lt_exp32_fma.h) define base_f32 and
    # base_f32_chunk; so does a row X(base, ...) of lt_exp.h's LTM_EXP32_FAMILY table
    m = re.fullmatch(r"ltm_(\w+)_f32_fast(_chunk)?", name)
    if m and re.search(rf"\bLTM_LOGF_FAST\(\s*{m.group(1)}\s*\)", MATH_TEXT):
        return True   # LTM_LOGF_FAST(name) (lt_log.h) defines both fast forms
    m = re.fullmatch(r"(ltm_\w+)_f32(_chunk)?", name)
    return bool(m) and re.search(rf"\b(LT_F32_TWO_PASS|ltm_exp_two_pass|LTM_VEC_TWO_PASS|"
                                 rf"LTM_EXP32_TWO_PASS|X)\(\s*{m.group(1)}\s*,",
                                 MATH_TEXT) is not None


# The parameters of every op function (lt_opfn, lt_kernel.h): n elements, the output, up to
# four operand registers (NULL where the op has fewer), the two attribute values, the mode.
_OP_PARAMS = ("int64_t n, void *o_, const void *a_, const void *b_, const void *c_, "
              "const void *d_, const double *p, int exact")


def _math_loops(op, dt, loads):
    """(exact loop, fast loop) of an op of the library's own math."""
    width = {"float32": "f32", "float64": "f64"}[dt]
    exact_fn, fast_fn = f"ltm_{op.math}_{width}", f"ltm_{op.math}_{width}_fast"
    for fn in (exact_fn, fast_fn):
        if not _math_defined(fn):
            raise RuntimeError(f"op {op.name}: {fn} is not defined in kernels_c/math/lt_*.h")
    names = "abc"[: op.arity]

    def loop(fn):
        """fn's whole-chunk form where the family has one, else fn per element (the exact
        functions return the canonical NaN themselves)."""
        if _math_defined(fn + "_chunk"):
            return f"{fn}_chunk(n, o, {', '.join('p' + v for v in names)});"
        return f"for (int64_t i = 0; i < n; i++) {{ {loads} o[i] = {fn}({', '.join(names)}); }}"

    return loop(exact_fn), loop(fast_fn)


def _op_function(op, dt):
    _, ctype, utype, kind, _ = _ROW[dt]
    math = bool(op.math) and kind == "f"
    body = "" if math else _c_expr(op.c_body(kind), dt)
    out_t = "uint8_t" if op.result == "bool" else ctype
    names = "abc"[: op.arity]
    loads = " ".join(f"const T {v} = p{v}[i];" for v in names)
    ptrs = " ".join(f"const T *p{v} = (const T *){v}_;" for v in names)
    canon = ("lt_canonf" if dt == "float32" else "lt_canon") if (kind == "f" and op.result == "same") else ""
    exact_loop = f"for (int64_t i = 0; i < n; i++) {{ {loads} o[i] = ({out_t}){canon}({body}); }}"
    fast_loop = f"for (int64_t i = 0; i < n; i++) {{ {loads} o[i] = ({out_t})({body}); }}"
    if math:
        loops = "if (exact) {{ {} }} else {{ {} }}".format(*_math_loops(op, dt, loads))
    elif op.f_chunk and kind == "f":
        loops = f"{_c_expr(op.f_chunk, dt)}(n, o, {', '.join('p' + v for v in names)}, exact);"
    elif not canon:
        loops = fast_loop
    else:
        loops = f"if (exact) {{ {exact_loop} }} else {{ {fast_loop} }}"
    return (
        f"static void {ops.entry_name(op.name, dt)}({_OP_PARAMS})\n"
        f"{{\n    typedef {ctype} T; typedef {utype} UT;\n"
        f"    {out_t} *restrict o = ({out_t} *)o_; {ptrs}\n"
        f"    const double p0 = p[0], p1 = p[1]; (void)p0; (void)p1; (void)exact;\n"
        f"    (void)a_; (void)b_; (void)c_;\n"
        f"    {loops}\n}}\n"
    )


def _complex_functions():
    """The complex ops: each table row's ``cc`` body per complex dtype, and the parts (real,
    imag, conj).  Exact mode makes NaN results canonical, component by component; fast mode
    computes the same values (NaN payloads left as they come)."""
    out = []
    sig = f"({_OP_PARAMS})"
    for dt in ops.COMPLEX_DTYPES:
        ctype = _ROW[dt][1]
        part = ops.COMPLEX_PART[dt]
        rtype = _ROW[part][1]
        sfx = "_f32" if part == "float32" else "_f64"
        canon = {"same": f"ltm_canon{sfx}", "real": "lt_canonf" if part == "float32" else "lt_canon",
                 "bool": ""}
        bodies = [(op.name, op.arity, op.cc, op.cplx_result) for op in ops.OPS_LIST if op.cc]
        bodies += [("real", 1, "a.re", "real"), ("imag", 1, "a.im", "real"),
                   ("conj", 1, "(T){a.re, -a.im}", "same")]
        for name, arity, body, result in bodies:
            body = body.replace("##C", sfx)
            out_t = {"same": ctype, "real": rtype, "bool": "uint8_t"}[result]
            names = "abc"[:arity]
            loads = " ".join(f"const T {v} = p{v}[i];" for v in names)
            ptrs = " ".join(f"const T *p{v} = (const T *){v}_;" for v in names)
            c = canon[result]
            loop = f"for (int64_t i = 0; i < n; i++) {{ {loads} o[i] = ({out_t})({body}); }}"
            if body.startswith("chunk:"):     # its own whole-chunk function
                loop = f"{body[6:]}(n, o, {', '.join('p' + v for v in names)});"
                if c:
                    loop += f" if (exact) for (int64_t i = 0; i < n; i++) o[i] = {c}(o[i]);"
            elif c:
                exact_loop = (f"for (int64_t i = 0; i < n; i++) {{ {loads} "
                              f"o[i] = {c}(({out_t})({body})); }}")
                loop = f"if (exact) {{ {exact_loop} }} else {{ {loop} }}"
            out.append(
                f"static void {ops.entry_name(name, dt)}{sig}\n"
                f"{{\n    typedef {ctype} T; typedef {rtype} R; (void)sizeof(R);\n"
                f"    {out_t} *restrict o = ({out_t} *)o_; {ptrs}\n"
                f"    (void)a_; (void)b_; (void)c_; (void)p; (void)exact;\n"
                f"    {loop}\n}}\n")
        out.append(
            f"static void {ops.entry_name('complex', dt)}{sig}\n"
            f"{{ const {rtype} *pa = (const {rtype} *)a_, *pb = (const {rtype} *)b_;\n"
            f"  {ctype} *restrict o = ({ctype} *)o_; (void)c_; (void)p; (void)exact;\n"
            f"  for (int64_t i = 0; i < n; i++) {{ o[i].re = pa[i]; o[i].im = pb[i]; }} }}\n")
    return out


def _sized_functions():
    out = []
    for size in (1, 2, 4, 8, 16):
        t = f"uint{size * 8}_t" if size <= 8 else "lt_c128"
        out.append(
            f"static void {ops.entry_name('copy', f'x{size}')}({_OP_PARAMS})\n"
            f"{{ (void)b_; (void)c_; (void)p; (void)exact; memcpy(o_, a_, (size_t)n * {size}); }}\n")
        out.append(
            f"static void {ops.entry_name('where', f'x{size}')}({_OP_PARAMS})\n"
            f"{{ const uint8_t *pc = (const uint8_t *)a_; const {t} *px = (const {t} *)b_; "
            f"const {t} *py = (const {t} *)c_; {t} *restrict o = ({t} *)o_; (void)p; (void)exact;\n"
            f"  for (int64_t i = 0; i < n; i++) o[i] = pc[i] ? px[i] : py[i]; }}\n")
    return out


def _cast_expr(src, dst):
    """C expression converting `x` (a source element) to the destination type."""
    if ops.COMPLEX_PART.get(src):   # complex -> anything: the real part's cast (NumPy's),
        if _ROW[dst][3] == "c":     # complex -> bool: either part nonzero
            d_ct, d_part = _ROW[dst][1], _ROW[ops.COMPLEX_PART[dst]][1]
            return f"(({d_ct}){{({d_part})x.re, ({d_part})x.im}})"
        if _ROW[dst][3] == "b":
            return "(uint8_t)(x.re != 0 || x.im != 0)"
        expr = _cast_expr(ops.COMPLEX_PART[src], dst)
        if isinstance(expr, tuple):
            return re.sub(r"\bx\b", "x.re", expr[0]), expr[1]
        return re.sub(r"\bx\b", "x.re", expr)
    if ops.COMPLEX_PART.get(dst):   # real -> complex: the cast to the part type, im = +0
        part = ops.COMPLEX_PART[dst]
        expr = _cast_expr(src, part)
        return f"(({_ROW[dst][1]}){{{expr}, 0}})"
    _, s_ct, _, s_kind, _ = _ROW[src]
    _, d_ct, d_ut, d_kind, d_bits = _ROW[dst]
    # the source as a wide value: double for floats, a 64-bit integer otherwise
    if s_kind == "h":
        wide, s_float = "lt_f16_to_f64(x)", True
    elif s_kind == "f":
        wide, s_float = "(double)x", True
    elif s_kind == "u":
        wide, s_float = "(uint64_t)x", False
    else:
        wide, s_float = "(int64_t)x", False
    if d_kind == "b":
        return f"(uint8_t)({wide} != 0)"
    if d_kind == "h":
        return f"lt_f64_to_f16((double){wide})"
    if d_kind == "f":
        # integers convert directly (one rounding); floats through the exact double
        expr = f"({d_ct})x" if not s_float or s_kind == "f" else f"({d_ct}){wide}"
        return expr
    if s_float:  # float -> integer: truncate, saturate, NaN -> 0
        lo = -(2 ** (d_bits - 1)) if d_kind == "i" else 0
        hi = 2 ** (d_bits - 1) if d_kind == "i" else 2 ** d_bits
        tmin, tmax = _limits(dst)
        return (f"lt_sat_{dst}({wide})", (dst, lo, hi, d_ct, tmin, tmax))
    return f"({d_ct})({d_ut})(uint64_t){wide}"  # integer -> integer wraps


# float32 -> 8/16-bit integer casts: the scalar rule (NaN -> 0, saturate, truncate) goes
# through double and does not vectorise well.  On the AVX2 paths a vector head computes the
# same values: NaN lanes are zeroed (and with an ordered compare), then max(x, lo) and
# min(x, hi - 1) (MAXPS/MINPS are exactly `x > lo ? x : lo`, `x < hi-1 ? x : hi-1`), a
# truncating conversion (in range by then, and exact: the bounds are float32 integers) and a
# saturating pack that changes no value (on AVX-512, 16 lanes and a narrowing that changes
# none either).  Each returns how many elements it did (0 where __AVX2__ is not enabled).
_SAT_VEC = {"uint8": (0, 255, "_mm_packus_epi16", 1), "int8": (-128, 127, "_mm_packs_epi16", 1),
            "uint16": (0, 65535, "", 2), "int16": (-32768, 32767, "", 2)}


# The fused quantize's vector head (lt_sat_quantize_vec_*, per width: lanes, vector type, its
# intrinsics' prefix): the chunk's quotients x / c (or x * r), rounded half to even by the
# instruction (the integers lt_roundf gives) and shifted by z, first, into registers (16 of
# them on AVX-512), then each cast as above.  The loads of a chunk issue back to back: with
# the casts in the same loop the time per element rose by up to 1.1x where the input comes
# from L3 (10^6 float32 on the Xeon).
_QUANTIZE_WIDTHS = (("__AVX512F__", 16, "__m512", "_mm512_", "_mm512_roundscale_ps"),
                    ("__AVX2__", 8, "__m256", "_mm256_", "_mm256_round_ps"))


def _quantize_vec_helper(dst, d_ct):
    loops = []
    for macro, lanes, vt, pre, rnd in _QUANTIZE_WIDTHS:
        loops.append(
            f"#if defined({macro})\n    {{\n"
            f"        const {vt} sv = {pre}set1_ps(s), zv = {pre}set1_ps(z);\n"
            f"#define LT_Q(k) {pre}add_ps({rnd}(mul ? {pre}mul_ps({pre}loadu_ps(a + (k)), sv) : "
            f"{pre}div_ps({pre}loadu_ps(a + (k)), sv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), zv)\n"
            f"        for (; i + LT_CHUNK <= n; i += LT_CHUNK) {{\n"
            f"            {vt} t[LT_CHUNK / {lanes}];\n"
            f"            for (int j = 0; j < LT_CHUNK / {lanes}; j++) t[j] = LT_Q(i + {lanes} * j);\n"
            f"            for (int j = 0; j < LT_CHUNK / {lanes}; j++) lt_sat_v{lanes}_{dst}(o + i + {lanes} * j, t[j]);\n"
            f"        }}\n"
            f"        for (; i + {lanes} <= n; i += {lanes}) lt_sat_v{lanes}_{dst}(o + i, LT_Q(i));\n"
            f"#undef LT_Q\n    }}\n#endif\n")
    return (f"static inline int64_t lt_sat_quantize_vec_{dst}(int64_t n, {d_ct} *o, const float *a, "
            f"float s, int mul, float z)\n{{\n    int64_t i = 0;\n"
            f"    (void)n; (void)o; (void)a; (void)s; (void)mul; (void)z;\n"
            + "".join(loops) + "    return i;\n}\n")


def _sat_vec_helpers():
    out = []
    for dst, (lo, hi, pack8, size) in _SAT_VEC.items():
        d_ct = _ROW[dst][1]
        if size == 1:
            store = (f"__m128i w = _mm_packs_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));\n"
                     f"    _mm_storel_epi64((__m128i *)o, {pack8}(w, w));")
        elif dst == "uint16":
            store = ("_mm_storeu_si128((__m128i *)o, _mm_packus_epi32(_mm256_castsi256_si128(v), "
                     "_mm256_extracti128_si256(v, 1)));")
        else:
            store = ("_mm_storeu_si128((__m128i *)o, _mm_packs_epi32(_mm256_castsi256_si128(v), "
                     "_mm256_extracti128_si256(v, 1)));")
        narrow = "_mm512_cvtepi32_epi8" if size == 1 else "_mm512_cvtepi32_epi16"
        store16 = "_mm_storeu_si128((__m128i *)" if size == 1 else "_mm256_storeu_si256((__m256i *)"
        out.append(
            f"#if defined(__AVX512F__)\n"
            f"static inline void lt_sat_v16_{dst}({d_ct} *o, __m512 x)\n{{\n"
            f"    const __m512 z = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, x, _CMP_ORD_Q), x);\n"
            f"    const __m512i v = _mm512_cvttps_epi32(_mm512_min_ps(_mm512_max_ps(z, "
            f"_mm512_set1_ps({float(lo)!r}f)), _mm512_set1_ps({float(hi)!r}f)));\n"
            f"    {store16}o, {narrow}(v));   /* in range: the narrowing keeps the value */\n}}\n"
            f"#endif\n#if defined(__AVX2__)\n"
            f"static inline void lt_sat_v8_{dst}({d_ct} *o, __m256 x)\n{{\n"
            f"    const __m256 z = _mm256_and_ps(x, _mm256_cmp_ps(x, x, _CMP_ORD_Q));\n"
            f"    const __m256i v = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(z, "
            f"_mm256_set1_ps({float(lo)!r}f)), _mm256_set1_ps({float(hi)!r}f)));\n"
            f"    {store}\n}}\n#endif\n"
            f"static inline int64_t lt_sat_vec_{dst}(int64_t n, {d_ct} *o, const float *pa)\n"
            f"{{\n    int64_t i = 0;\n#if defined(__AVX512F__)\n"
            f"    for (; i + 16 <= n; i += 16) lt_sat_v16_{dst}(o + i, _mm512_loadu_ps(pa + i));\n"
            f"#endif\n#if defined(__AVX2__)\n"
            f"    for (; i + 8 <= n; i += 8) lt_sat_v8_{dst}(o + i, _mm256_loadu_ps(pa + i));\n"
            f"#else\n    (void)n; (void)o; (void)pa;\n#endif\n"
            f"    return i;\n}}\n" + _quantize_vec_helper(dst, d_ct))
    return "\n".join(out)


def _cast_functions():
    out, sat = [], {}
    for src, s_ct, *_ in ops.DTYPES:
        for dst, d_ct, _, d_kind, _ in ops.DTYPES:
            expr = _cast_expr(src, dst)
            if isinstance(expr, tuple):
                expr, info = expr
                sat[dst] = info
            canon = {"float32": "lt_canonf", "float64": "lt_canon", "complex64": "ltm_canon_f32",
                     "complex128": "ltm_canon_f64"}.get(dst, "")
            if src == dst and canon == "":
                expr_exact = expr_fast = "x"
            else:
                expr_fast = expr
                expr_exact = f"{canon}({expr})" if canon else expr
            # float32 -> 8/16-bit integers: a vector head on the AVX paths (same results)
            vec = (src == "float32" and dst in _SAT_VEC)
            start = f"lt_sat_vec_{dst}(n, o, pa)" if vec else "0"
            out.append(
                f"static void {ops.entry_name('cast', f'{src}_{dst}')}({_OP_PARAMS})\n"
                f"{{ const {s_ct} *pa = (const {s_ct} *)a_; {d_ct} *restrict o = ({d_ct} *)o_;\n"
                f"  (void)b_; (void)c_; (void)p; const int64_t i0 = {start};\n"
                f"  if (exact) {{ for (int64_t i = i0; i < n; i++) {{ const {s_ct} x = pa[i]; o[i] = {expr_exact}; }} }}\n"
                f"  else {{ for (int64_t i = i0; i < n; i++) {{ const {s_ct} x = pa[i]; o[i] = {expr_fast}; }} }} }}\n")
    helpers = [_sat_vec_helpers()]
    for dst, (name, lo, hi, d_ct, tmin, tmax) in sat.items():
        helpers.append(
            f"static inline {d_ct} lt_sat_{name}(double d)\n"
            f"{{ if (d != d) return 0; if (d <= {float(lo)!r}) return {tmin}; "
            f"if (d >= {float(hi)!r}) return {tmax}; return ({d_ct})d; }}\n")
    out.append(
        f"static void {ops.entry_name('widen', 'float16')}({_OP_PARAMS})\n"
        f"{{ const uint16_t *pa = (const uint16_t *)a_; float *restrict o = (float *)o_;\n"
        f"  (void)b_; (void)c_; (void)p; (void)exact;\n"
        f"  for (int64_t i = 0; i < n; i++) o[i] = (float)lt_f16_to_f64(pa[i]); }}\n")
    return helpers + out


def _divide_by_scalar_functions():
    """divide with a scalar register as divisor (picked by lower.py): lt_div_scalar in
    lt_math.h, which hoists the divisor and, in fast mode, multiplies by its reciprocal."""
    out = []
    for dt in ops.DIVIDE_BY_SCALAR_DTYPES:
        _, ct, _, _, _ = _ROW[dt]
        suffix = "f" if dt == "float32" else ""
        out.append(
            f"static void {ops.entry_name('divide_by_scalar', dt)}({_OP_PARAMS})\n"
            f"{{ (void)c_; (void)p; lt_div_scalar{suffix}_chunk(n, ({ct} *)o_, "
            f"(const {ct} *)a_, (const {ct} *)b_, exact); }}\n")
    return out


def _quantize_functions():
    """divide_by_scalar, round, + a scalar and a saturating cast from float32 to a small
    integer, fused (picked by lower.py): the same operations in the same order, so the same
    bits (the quotient's NaN is not made canonical: the cast sends any NaN to 0), but one op
    call per chunk: on the AVX paths a vector head (lt_sat_quantize_vec_*), for the rest (all
    of it on the generic path) the chunk's rounded quotients in L1 and then their casts."""
    out = []
    for dst in ops.QUANTIZE_DTYPES:
        d_ct = _ROW[dst][1]
        out.append(
            f"static void {ops.entry_name('quantize', f'float32_{dst}')}({_OP_PARAMS})\n"
            f"{{ {d_ct} *restrict o = ({d_ct} *)o_;\n"
            f"  const float *a = (const float *)a_, c = *(const float *)b_;\n"
            f"  /* no zero point: adding +0 changes no integer the cast gives */\n"
            f"  const float z = c_ ? *(const float *)c_ : 0.0f;\n"
            f"  float r = 0.0f, t[LT_CHUNK];   /* r is read only where it was set */\n"
            f"  const int mul = !exact && lt_div_scalarf_multiplies(c, &r);   /* as divide_by_scalar */\n"
            f"  (void)p;\n"
            f"  for (int64_t i0 = lt_sat_quantize_vec_{dst}(n, o, a, mul ? r : c, mul, z); i0 < n; i0 += LT_CHUNK) {{\n"
            f"    const int64_t m = n - i0 < LT_CHUNK ? n - i0 : LT_CHUNK;\n"
            f"    if (mul) for (int64_t i = 0; i < m; i++) t[i] = lt_roundf(a[i0 + i] * r) + z;\n"
            f"    else for (int64_t i = 0; i < m; i++) t[i] = lt_roundf(a[i0 + i] / c) + z;\n"
            f"    int64_t i = lt_sat_vec_{dst}(m, o + i0, t);\n"
            f"    for (; i < m; i++) o[i0 + i] = lt_sat_{dst}((double)t[i]);\n"
            f"  }} }}\n")
    return out


# Kernel paths: the same op bodies compiled for several instruction sets, chosen at run
# time.  In exact mode only the vector width differs: -ffp-contract=off holds for every path
# and exact code never calls an FMA, so every path computes each element with the same IEEE
# operations and gives the same bits.  Fast-mode functions use LT_FMA (double) and LT_FMAF
# (float), an FMA on the AVX paths.
X86_PATHS = (("generic", None),                 # x86-64 baseline (SSE2), or plain C
             ("avx2", "avx2,fma"),
             ("avx512", "avx512f,avx512bw,avx512dq,avx512vl,fma"))


# the row dtypes of lt_exp_sum_tables, in its order (lt_kernel.c indexes it so)
ROW_EXP_SUM_DTYPES = ("float32", "float64")


def _row_exp_sum_functions():
    """Fast-mode softmax rows (lt_run_rowwise): exp(x - s) and its sum, in one pass
    (ltm_exp_sum_*_fast, lt_exp.h), one per dtype of ROW_EXP_SUM_DTYPES."""
    out = []
    for dt in ROW_EXP_SUM_DTYPES:
        ct, w = _ROW[dt][1], {"float32": "f32", "float64": "f64"}[dt]
        out.append(
            f"static double ltm_row_exp_sum_{dt}(int64_t n, void *e, const void *x, const void *s)\n"
            f"{{ return ltm_exp_sum_{w}_fast(n, ({ct} *)e, (const {ct} *)x, *(const {ct} *)s); }}\n")
    return out


def _path_text(text: str, path: str) -> str:
    """The op functions renamed for one path (their helpers too, so paths do not clash)."""
    text = re.sub(r"\blt_(op|sat)_", lambda m: f"lt_{m.group(1)}_{path}_", text)
    return re.sub(r"\bltm_", f"ltm_{path}_", text)


def _path_entries(path_names, entry, null: str) -> str:
    """Initialisers of an array indexed by kernel path: entry(path), or null where the path
    is not compiled (the x86 paths on other machines)."""
    return ", ".join(
        entry(p) if i == 0 else
        f"\n#if defined(__x86_64__) || defined(__i386__)\n    {entry(p)}\n#else\n    {null}\n#endif\n"
        for i, p in enumerate(path_names))


def generate_ops_source() -> str:
    body = []
    for op in ops.OPS_LIST:
        for dt in ops.COMPUTE_DTYPES:
            if _ROW[dt][3] in op.kinds:
                body.append(_op_function(op, dt))
    body += _sized_functions()
    body += _complex_functions()
    body += _cast_functions()
    body += _divide_by_scalar_functions()
    body += _quantize_functions()
    body += _row_exp_sum_functions()
    body += build_fused.fused_functions(ops, _ROW, _c_expr, _math_defined, _OP_PARAMS)
    body = MATH_TEXT + "\n" + "\n".join(body)
    entries = ops.kernel_entries()
    parts = ['#include <stdint.h>\n#include <string.h>\n#include <math.h>\n'
             '#if defined(__x86_64__) || defined(__i386__)\n#include <immintrin.h>\n#endif\n'
             '#include "lt_math.h"\n'
             '#include "lt_dd.h"\n#include "lt_kernel.h"\n'] + \
        [f'#include "{h}"' for h in MATH_DATA_HEADERS]
    path_names = []
    for i, (path, target) in enumerate(X86_PATHS):
        guard = "#if 1" if target is None else "#if defined(__x86_64__) || defined(__i386__)"
        parts.append(guard)
        if target is not None:
            parts.append(f'#pragma GCC push_options\n#pragma GCC target("{target}")')
        # fast-mode math may fuse multiply-adds where the path has FMA; exact code never uses it
        fma = "__builtin_fma(a, b, c)" if target else "((a) * (b) + (c))"
        parts.append(f"#undef LT_FMA\n#define LT_FMA(a, b, c) {fma}")
        # its float form, for the float32 fast forms that compute in float
        fmaf = "__builtin_fmaf(a, b, c)" if target else "((a) * (b) + (c))"
        parts.append(f"#undef LT_FMAF\n#define LT_FMAF(a, b, c) {fmaf}")
        parts.append(f"#undef LT_HAS_FMA\n#define LT_HAS_FMA {1 if target else 0}")
        parts.append(_path_text(body, path))
        parts.append(f"static const lt_opfn lt_op_table_{path}[] = {{\n" +
                     ",\n".join(f"    {_path_text(ops.entry_name(o, s), path)}" for o, s in entries)
                     + "\n};")
        if target is not None:
            parts.append("#pragma GCC pop_options")
        parts.append("#endif")
        path_names.append(path)
    # vm/reduce.c's complex products multiply as the generic path does (one code, every path)
    parts.append("void lt_red_cmul_f64(lt_c128 *a, const lt_c128 *b) "
                 "{ *a = ltm_generic_cmul_f64(*a, *b); }")
    tables = _path_entries(path_names, lambda p: f"lt_op_table_{p}", "NULL")
    parts.append(f"const lt_opfn *const lt_op_tables[] = {{ {tables} }};")
    sums = _path_entries(
        path_names,
        lambda p: "{ " + ", ".join(f"ltm_{p}_row_exp_sum_{dt}" for dt in ROW_EXP_SUM_DTYPES) + " }",
        "{ " + ", ".join(["NULL"] * len(ROW_EXP_SUM_DTYPES)) + " }")
    parts.append(f"const lt_expsumfn lt_exp_sum_tables[][{len(ROW_EXP_SUM_DTYPES)}] = {{ {sums} }};")
    parts.append("const char *const lt_path_names[] = {" +
                 ", ".join(f'"{p}"' for p in path_names) + "};")
    parts.append(f"const int lt_n_paths = {len(path_names)};")
    parts.append("const char *const lt_op_names[] = {\n" +
                 ",\n".join(f'    "{o}:{s}"' for o, s in entries) + "\n};\n")
    parts.append(f"const int lt_n_ops = {len(entries)};\n")
    return "\n".join(parts)


def _cdef_text():
    with open(os.path.join(HERE, "lt_kernel.h")) as f:
        text = f.read()
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


ffibuilder = FFI()
ffibuilder.cdef(_cdef_text())
ffibuilder.set_source(
    "lazytensor._kernels",
    generate_ops_source(),
    sources=[os.path.relpath(os.path.join(HERE, "lt_kernel.c"), os.getcwd())],
    # the interpreter's parts (vm/) and headers: included by lt_kernel.c, one translation unit
    depends=sorted(os.path.relpath(p, os.getcwd()) for p in glob.glob(os.path.join(HERE, "vm", "*.c"))
                   + glob.glob(os.path.join(HERE, "*.h")) + glob.glob(os.path.join(HERE, "math", "*.h"))),
    include_dirs=[os.path.relpath(HERE, os.getcwd()), os.path.relpath(os.path.join(HERE, "math"), os.getcwd())],
    extra_compile_args=EXTRA_COMPILE_ARGS,
    extra_link_args=["-pthread"],
    libraries=["m"],
)

if __name__ == "__main__":
    ffibuilder.compile(tmpdir=os.path.join(ROOT, "build", "cffi"), verbose=True)
