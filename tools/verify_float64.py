"""Sampled float64 check of the library's own math functions against MPFR.

    python tools/verify_float64.py exp log ... [--n 1000000] [--path avx2] [--mode exact]

Inputs are drawn log-uniformly over each function's domain (every binade equally likely,
both signs where the domain allows) plus uniform samples over the region where the
function does its work (|x| < 40, the unit interval...), so the thresholds and the
reduction boundaries are all visited.  The true value comes from MPFR (gmpy2, 200 bits);
the error is measured in ulps of the true value.  Prints, per function, the largest error
and where it occurred.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def _log_uniform(rng, n, lo_exp, hi_exp, signed=True):
    mag = np.exp2(rng.uniform(lo_exp, hi_exp, n))
    return mag * rng.choice([-1.0, 1.0], n) if signed else mag


def _sampler(kind, focus):
    """kind: the domain; focus: half-width of the uniform sample around the origin."""
    def draw(rng, n):
        half = n // 2
        if kind == "all":
            wide = _log_uniform(rng, half, -1074, 1024)
            near = rng.uniform(-focus, focus, n - half)
        elif kind == "pos":
            wide = _log_uniform(rng, half, -1074, 1024, signed=False)
            near = rng.uniform(0, focus, n - half)
        elif kind == "unit":              # [-1, 1]
            wide = _log_uniform(rng, half, -1074, 0)
            near = rng.uniform(-1, 1, n - half)
        elif kind == "ge1":               # [1, inf)
            wide = 1 + _log_uniform(rng, half, -52, 1023, signed=False)
            near = rng.uniform(1, focus, n - half)
        elif kind == "gtm1":              # (-1, inf)
            wide = _log_uniform(rng, half, -1074, 1024)
            wide = np.where(wide < -1, -1 + np.abs(wide) % 1, wide)
            near = rng.uniform(-1, focus, n - half)
        else:
            raise ValueError(kind)
        return np.concatenate([wide, near])
    return draw


def functions():
    """name -> (lazytensor function name, arity, MPFR function, input sampler)."""
    return {
        "exp": ("exp", 1, lambda g, x: g.exp(x), _sampler("all", 745)),
        "expm1": ("expm1", 1, lambda g, x: g.expm1(x), _sampler("all", 40)),
        "log": ("log", 1, lambda g, x: g.log(x), _sampler("pos", 4)),
        "log1p": ("log1p", 1, lambda g, x: g.log1p(x), _sampler("gtm1", 4)),
        "log2": ("log2", 1, lambda g, x: g.log2(x), _sampler("pos", 4)),
        "log10": ("log10", 1, lambda g, x: g.log10(x), _sampler("pos", 4)),
        "sinh": ("sinh", 1, lambda g, x: g.sinh(x), _sampler("all", 40)),
        "cosh": ("cosh", 1, lambda g, x: g.cosh(x), _sampler("all", 40)),
        "tanh": ("tanh", 1, lambda g, x: g.tanh(x), _sampler("all", 20)),
        "asinh": ("asinh", 1, lambda g, x: g.asinh(x), _sampler("all", 4)),
        "acosh": ("acosh", 1, lambda g, x: g.acosh(x), _sampler("ge1", 4)),
        "atanh": ("atanh", 1, lambda g, x: g.atanh(x), _sampler("unit", 1)),
        "sin": ("sin", 1, lambda g, x: g.sin(x), _sampler("all", 100)),
        "cos": ("cos", 1, lambda g, x: g.cos(x), _sampler("all", 100)),
        "tan": ("tan", 1, lambda g, x: g.tan(x), _sampler("all", 100)),
        "asin": ("asin", 1, lambda g, x: g.asin(x), _sampler("unit", 1)),
        "acos": ("acos", 1, lambda g, x: g.acos(x), _sampler("unit", 1)),
        "atan": ("atan", 1, lambda g, x: g.atan(x), _sampler("all", 20)),
        "erf": ("erf", 1, lambda g, x: g.erf(x), _sampler("all", 7)),
        "sigmoid": ("sigmoid", 1, lambda g, x: 1 / (1 + g.exp(-x)), _sampler("all", 750)),
        "silu": ("silu", 1, lambda g, x: x / (1 + g.exp(-x)), _sampler("all", 760)),
        "gelu": ("gelu", 1, lambda g, x: x / 2 * g.erfc(-x / g.sqrt(2)), _sampler("all", 40)),
        "gelu_tanh": ("gelu_tanh", 1,
                      lambda g, x: x / (1 + g.exp(-2 * g.sqrt(2 / g.const_pi()) *
                                                  (x + g.mpfr("0.044715") * x ** 3))),
                      _sampler("all", 40)),
        "atan2": ("atan2", 2, lambda g, y, x: g.atan2(y, x), _sampler("all", 10)),
        "hypot": ("hypot", 2, lambda g, x, y: g.hypot(x, y), _sampler("all", 10)),
        # pow has its own tool (tools/verify_pow.py: sweeps, exact cases, special grid)
        "pow": ("pow", 2, lambda g, x, y: x ** y, _sampler("pos", 4)),
        "logaddexp": ("logaddexp", 2,
                      lambda g, x, y: x + g.log(2) if x == y else
                      (x if x > y else y) + g.log1p(g.exp(-abs(x - y))),
                      _sampler("all", 60)),
    }


def true_values(args, mp_fn, precision=200):
    """The true values (MPFR, ``precision`` bits) of ``mp_fn`` at the float64 inputs."""
    import gmpy2

    ctx = gmpy2.get_context()
    ctx.precision = precision
    ctx.emin, ctx.emax = -20000, 20000
    n = np.asarray(args[0]).size
    return [mp_fn(gmpy2, *(gmpy2.mpfr(float(a[i])) for a in args)) for i in range(n)]


def ulp_errors(got, args, mp_fn, true=None):
    """Errors in ulps of the true value (MPFR, 200 bits; or ``true``, from true_values);
    0 where both are NaN or equal infinities, inf where one is NaN and the other is not."""
    import gmpy2

    if true is None:
        true = true_values(args, mp_fn)
    err = np.zeros(got.size)
    for i in range(got.size):
        g = float(got[i])
        if gmpy2.is_nan(true[i]) or np.isnan(g):
            err[i] = 0.0 if (gmpy2.is_nan(true[i]) and np.isnan(g)) else np.inf
            continue
        t = float(true[i])              # the true value rounded to double
        if np.isinf(t) or np.isinf(g):
            err[i] = 0.0 if g == t else np.inf
            continue
        ulp = np.spacing(abs(t)) if t != 0 else 5e-324
        ulp = max(ulp, 5e-324)
        err[i] = float(abs(gmpy2.mpfr(g) - true[i]) / gmpy2.mpfr(ulp))
    return err


def verify(name, n, seed=0, out=print):
    import lazytensor as lt

    fn_name, arity, mp_fn, draw = functions()[name]
    rng = np.random.default_rng(seed)
    args = [draw(rng, n) for _ in range(arity)]
    fn = getattr(lt.nn, fn_name, None) if fn_name in ("sigmoid", "silu", "gelu") else getattr(lt, fn_name, None)
    if fn_name == "gelu_tanh":
        def fn(t):
            return lt.nn.gelu(t, approximate="tanh")
    start = time.perf_counter()
    with np.errstate(all="ignore"):
        got = np.asarray(fn(*(lt.asarray(a) for a in args)))
    err = ulp_errors(got, args, mp_fn)
    k = int(np.argmax(err))
    out(f"{name:10s} float64 inputs {got.size:>8d}  max ulp {err[k]:.3f}  at "
        + ", ".join(repr(float(a[k])) for a in args)
        + f"  ({time.perf_counter() - start:.1f} s)")
    return float(err[k])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("functions", nargs="+", choices=list(functions()))
    ap.add_argument("--n", type=int, default=1_000_000, help="inputs per function")
    ap.add_argument("--path", default=None, help="kernel path (default: the best)")
    ap.add_argument("--mode", default="exact", choices=("exact", "fast"))
    args = ap.parse_args(argv)
    import lazytensor as lt

    print(f"lazytensor kernel path {args.path or lt.kernel_path()}, mode {args.mode}, "
          f"{args.n} sampled float64 inputs per function", flush=True)
    with lt.config(kernel_path=args.path, mode=args.mode):
        for name in args.functions:
            verify(name, args.n, out=lambda s: print(s, flush=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
