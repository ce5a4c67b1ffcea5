"""Check lazytensor's ``pow`` against MPFR: float32 bit for bit (correctly rounded), float64 in ulps.

    python tools/verify_pow.py grid [--path avx2]
    python tools/verify_pow.py sweep-x --y 3 -1 0.5 1/3 --step 1 [--path generic]
    python tools/verify_pow.py sweep-y --x 2 10 e --step 1
    python tools/verify_pow.py random --n 10000000 [--seed 1]
    python tools/verify_pow.py random64 --n 1000000        (float64: largest error in ulps)

float32 reference: MPFR (gmpy2) at 24 bits with float32's exponent range and subnormals, so
correctly rounded, including the exact cases and midpoints.  For the sweeps over every x (or
every y) MPFR is called only where it can matter: NumPy's float64 pow (the platform's, within
1 ulp of float64, 2^-52 relative) is rounded to float32 and taken as the reference wherever it
lies more than 2^-40 (relative) from every float32 rounding boundary (a margin 2^12 times its
error); the pairs within 2^-40 of one, and every pair where lazytensor disagrees with that
rounding, go to MPFR.  ``--all-mpfr`` sends every pair to MPFR.

Exponents and bases are given as floats, fractions (1/3) or ``e``; each is rounded to float32.
Prints per set: pairs checked, pairs sent to MPFR, misrounded pairs (and the first ones).
"""

from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction

import numpy as np

CHUNK = 1 << 22


def _lt(path):
    import lazytensor as lt
    if path:
        lt.config(kernel_path=path).__enter__()   # for the whole run
    return lt


def _ctx(gmpy2, dtype):
    if dtype == np.float32:
        return gmpy2.context(precision=24, emin=-148, emax=128, subnormalize=True)
    return gmpy2.context(precision=53, emin=-1073, emax=1024, subnormalize=True)


def mpfr_pow(x, y, dtype=np.float32):
    """x^y correctly rounded to dtype by MPFR, elementwise."""
    import gmpy2
    out = np.empty(len(x), dtype)
    with gmpy2.context(_ctx(gmpy2, dtype)):
        mp = gmpy2.mpfr
        for i in range(len(x)):
            out[i] = float(mp(float(x[i])) ** mp(float(y[i])))
    return out


def _near_boundary(ref, r32):
    """ref (float64) within 2^-40 relative of a float32 rounding boundary (a midpoint between
    r32 = RN32(ref) and a neighbour), or NaN/inf where that cannot be told."""
    with np.errstate(all="ignore"):
        up = np.nextafter(r32, np.float32(np.inf)).astype(np.float64)
        dn = np.nextafter(r32, np.float32(-np.inf)).astype(np.float64)
        r = r32.astype(np.float64)
        top = np.float64(np.finfo(np.float32).max) + 2.0 ** 103      # the overflow midpoint
        mid_up = np.where(np.isinf(up), top, (r + up) / 2)
        mid_dn = np.where(np.isinf(dn), -top, (r + dn) / 2)
        mid_up = np.where(np.isinf(r), np.sign(r) * top, mid_up)
        mid_dn = np.where(np.isinf(r), np.sign(r) * top, mid_dn)
        d = np.minimum(np.abs(ref - mid_up), np.abs(ref - mid_dn))
        # an infinite float64 result is beyond 2^1024: float32 overflow without a doubt
        return ~(d > np.abs(ref) * 2.0 ** -40) & ~np.isnan(ref) & ~np.isinf(ref)


def check32(lt, x, y, all_mpfr=False):
    """(pairs sent to MPFR, indices misrounded, lazytensor's results, references there)."""
    got = lt.pow(lt.asarray(x), lt.asarray(y)).numpy()
    if all_mpfr:
        ask = np.ones(len(x), bool)
        ref32 = np.zeros(len(x), np.float32)
    else:
        with np.errstate(all="ignore"):
            ref = np.power(x.astype(np.float64), y.astype(np.float64))
            ref32 = ref.astype(np.float32)
        same = (got.view(np.uint32) == ref32.view(np.uint32)) | (np.isnan(got) & np.isnan(ref32))
        ask = _near_boundary(ref, ref32) | ~same
    idx = np.nonzero(ask)[0]
    want = ref32.copy()
    if len(idx):
        want[idx] = mpfr_pow(x[idx], y[idx])
    bad = (got.view(np.uint32) != want.view(np.uint32)) & ~(np.isnan(got) & np.isnan(want))
    # NaN results must be the canonical quiet NaN (exact mode)
    bad |= np.isnan(got) & (got.view(np.uint32) != 0x7FC00000)
    return len(idx), np.nonzero(bad)[0], got, want


def _value(s):
    if s == "e":
        return float(np.float32(np.e))
    if s == "-e":
        return -float(np.float32(np.e))
    return float(np.float32(float(Fraction(s))))


def _report(name, n, asked, bad, x, y, got, want):
    print(f"{name}: {n} pairs, {asked} to MPFR, {len(bad)} misrounded", flush=True)
    for i in bad[:10]:
        print(f"    x={float(x[i]).hex()} y={float(y[i]).hex()} got {float(got[i]).hex()} "
              f"want {float(want[i]).hex()}")
    return len(bad)


def _all_floats(step, negative):
    """Every step-th float32 bit pattern (positive, and negative if asked), in chunks; NaNs
    skipped."""
    top = 0x7F800001                     # up to +inf
    for lo in range(0, top, CHUNK * step):
        b = np.arange(lo, min(lo + CHUNK * step, top), step, dtype=np.uint32)
        v = b.view(np.float32)
        yield np.concatenate([v, -v]) if negative else v


def sweep(lt, fixed, over_x, step, all_mpfr):
    total_bad = 0
    for c in fixed:
        fc = np.float32(c)
        t0 = time.time()
        n = asked = 0
        bads, nbad = [], 0
        # negative bases matter only for integer exponents (otherwise NaN, checked by grid)
        negative = (not over_x) or float(fc).is_integer()
        for v in _all_floats(step, negative if over_x else True):
            x, y = (v, np.full_like(v, fc)) if over_x else (np.full_like(v, fc), v)
            a, bad, got, want = check32(lt, x, y, all_mpfr)
            n += len(v)
            asked += a
            bads += [(x[i], y[i], got[i], want[i]) for i in bad[:10]]
            nbad += len(bad)
        name = f"{'y' if over_x else 'x'}={float(fc).hex()} ({float(fc):g}), every {step}th {'x' if over_x else 'y'}"
        print(f"{name}: {n} pairs, {asked} to MPFR, {nbad} misrounded, {time.time() - t0:.0f} s",
              flush=True)
        total_bad += nbad
        for xx, yy, g, w in bads:
            print(f"    x={float(xx).hex()} y={float(yy).hex()} got {float(g).hex()} want {float(w).hex()}")
    return total_bad


def random_pairs(rng, n):
    """Pairs weighted to results in float32's range: x log-uniform over all binades (both
    signs), y = T / log(|x|) with T uniform in [-110, 95] (so x^y spans underflow to
    overflow), half of them rounded to integers or halves; plus a quarter small integer x and
    y (exact results and midpoints)."""
    q = n // 4
    x = np.exp2(rng.uniform(-149, 128, n)).astype(np.float32)
    x = np.where(rng.random(n) < 0.3, -x, x)
    lx = np.log(np.abs(x.astype(np.float64)))
    lx = np.where(lx == 0, 1.0, lx)
    y = (rng.uniform(-110, 95, n) / lx).astype(np.float32)
    k = rng.random(n)
    y = np.where(k < 0.25, np.round(y), np.where(k < 0.4, np.round(2 * y) / 2, y)).astype(np.float32)
    x[:q] = rng.integers(1, 5000, q).astype(np.float32) * np.exp2(rng.integers(-20, 20, q)).astype(np.float32)
    y[:q] = rng.integers(-30, 30, q).astype(np.float32) / np.float32(2) ** rng.integers(0, 4, q).astype(np.float32)
    return x, y


def grid_values(dtype):
    fi = np.finfo(dtype)
    v = [0.0, np.inf, np.nan, 1.0, 0.5, 2.0, 3.0, 1.5, 2.5, 0.25, 1 / 3, 7.0, 10.0, 1e10, 1e-10,
         float(fi.smallest_subnormal), float(fi.smallest_subnormal) * 3, float(fi.tiny),
         float(fi.max), float(np.nextafter(dtype(1), dtype(2))), float(np.nextafter(dtype(1), dtype(0))),
         2.0 ** 24, 2.0 ** 24 + 2, 2.0 ** 53, 127.0, 128.0, 149.0, 150.0, 1023.0, 1075.0]
    v = np.array(v, dtype)
    return np.concatenate([v, -v])


def grid(lt, dtype):
    """every pair of the special values, both signs, against MPFR (float64: bit for bit
    except within 1 ulp of MPFR where the result is finite and nonzero)."""
    v = grid_values(dtype)
    x = np.repeat(v, len(v))
    y = np.tile(v, len(v))
    got = lt.pow(lt.asarray(x), lt.asarray(y)).numpy()
    want = mpfr_pow(x, y, dtype)
    ut = np.uint32 if dtype == np.float32 else np.uint64
    bad = (got.view(ut) != want.view(ut)) & ~(np.isnan(got) & np.isnan(want))
    if dtype == np.float64:       # within 1 ulp, same class and sign
        with np.errstate(all="ignore"):
            fin = np.isfinite(want) & (want != 0) & np.isfinite(got)
            ulp = np.spacing(np.abs(want))
            bad &= ~(fin & (np.abs(got - want) <= ulp) & (np.sign(got) == np.sign(want)))
    nanbits = {np.float32: 0x7FC00000, np.float64: 0x7FF8000000000000}[dtype]
    bad |= np.isnan(got) & (got.view(ut) != nanbits)
    return _report(f"grid {np.dtype(dtype).name}", len(x), len(x), np.nonzero(bad)[0], x, y, got, want)


def random64(lt, rng, n):
    """float64 pairs (as random_pairs, in double) against MPFR at 200 bits: largest ulp error."""
    import gmpy2
    x = np.exp2(rng.uniform(-1074, 1024, n))
    x = np.where(rng.random(n) < 0.3, -x, x)
    lx = np.log(np.abs(x))
    y = rng.uniform(-760, 720, n) / np.where(lx == 0, 1.0, lx)
    k = rng.random(n)
    y = np.where(k < 0.25, np.round(y), np.where(k < 0.4, np.round(2 * y) / 2, y))
    q = n // 4
    x[:q] = rng.integers(1, 10 ** 6, q) * np.exp2(rng.integers(-40, 40, q))
    y[:q] = rng.integers(-60, 60, q) / 2.0 ** rng.integers(0, 4, q)
    got = lt.pow(lt.asarray(x), lt.asarray(y)).numpy()
    worst, where, worst_normal = 0.0, None, 0.0
    with gmpy2.context(precision=200, emin=-20000, emax=20000):
        mp = gmpy2.mpfr
        for i in range(n):
            v = mp(float(x[i])) ** mp(float(y[i]))
            if gmpy2.is_nan(v):
                if not np.isnan(got[i]):
                    worst, where = np.inf, i
                continue
            if np.isinf(got[i]) or v == 0 or gmpy2.is_infinite(v):
                ok = float(v) == got[i] or (abs(v) > 2 ** 1024 - 2 ** 970 and np.isinf(got[i]))
                if not ok and not (abs(v) < 2.0 ** -1074 and got[i] in (0.0, 2.0 ** -1074)):
                    worst, where = np.inf, i
                continue
            fv = abs(float(v))
            ulp = max(np.spacing(fv) if np.isfinite(fv) else 2.0 ** 971, 2.0 ** -1074)
            if fv >= 2.0 ** -1022:
                e = gmpy2.floor(gmpy2.log2(abs(v)))
                ulp = float(mp(2) ** (e - 52))
            err = float(abs(mp(float(got[i])) - v) / ulp)
            if fv >= 2.0 ** -1022:
                worst_normal = max(worst_normal, err)
            if err > worst:
                worst, where = err, i
    print(f"random float64: {n} pairs, largest error {worst:.4f} ulp "
          f"({worst_normal:.4f} where the result is normal)"
          + (f" at x={float(x[where]).hex()} y={float(y[where]).hex()}" if where is not None else ""),
          flush=True)
    return worst


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["grid", "sweep-x", "sweep-y", "random", "random64"])
    p.add_argument("--path", default=None, help="kernel path (generic, avx2, avx512)")
    p.add_argument("--y", nargs="*", default=[], help="exponents for sweep-x")
    p.add_argument("--x", nargs="*", default=[], help="bases for sweep-y")
    p.add_argument("--random-count", type=int, default=0,
                   help="sweep-x/-y: add this many random float32 exponents/bases (seed --seed)")
    p.add_argument("--step", type=int, default=1, help="every step-th float32 bit pattern")
    p.add_argument("--n", type=int, default=10 ** 6)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--all-mpfr", action="store_true")
    a = p.parse_args(argv)
    lt = _lt(a.path)
    print(f"lazytensor kernel path {lt.kernel_path()}, {a.what}", flush=True)
    rng = np.random.default_rng(a.seed)
    t0 = time.time()
    if a.what == "grid":
        bad = grid(lt, np.float32) + grid(lt, np.float64)
    elif a.what in ("sweep-x", "sweep-y"):
        fixed = [_value(s) for s in (a.y if a.what == "sweep-x" else a.x)]
        if a.random_count:
            r = rng.standard_normal(a.random_count) * (8 if a.what == "sweep-x" else 1)
            fixed += list(np.float32(r) if a.what == "sweep-x" else np.float32(np.exp(r * 3)))
        bad = sweep(lt, fixed, a.what == "sweep-x", a.step, a.all_mpfr)
    elif a.what == "random":
        bad = 0
        for lo in range(0, a.n, CHUNK):
            x, y = random_pairs(rng, min(CHUNK, a.n - lo))
            asked, b, got, want = check32(lt, x, y, a.all_mpfr)
            bad += _report(f"random pairs {lo}..{lo + len(x)}", len(x), asked, b, x, y, got, want)
    else:
        bad = 0 if random64(lt, rng, a.n) <= 1.0 else 1
    print(f"total misrounded (or beyond bound): {bad}; {time.time() - t0:.0f} s", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
