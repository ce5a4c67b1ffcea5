"""The float32 exact sin, cos and tan's first pass on the FMA paths
(kernels_c/math/lt_trig32_fma.h): every kernel path, bit for bit against MPFR rounded once to
float32; and the fast forms' float pass there, within their ulp bound.  The exhaustive 2^32
checks are tools/verify_float32.py (docs/verification/)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lazytensor as lt
from lazytensor._engine import ops as _ops
from test_exact_math import REFS, _call, _from_ordered, _ordered, _same_bits_every_path
import verify_float32


def _trig32_fma_inputs(name):
    """(inputs, the hard ones): forty ulps either side of the pass's bound 2^18, of
    multiples of pi/2 (where r is smallest, and where n changes: k pi for cos, (k + 1/2) pi
    for sin, so |r| is pi/2 and n may go either way), of odd multiples of pi/4 (where tan's k
    changes), of 1 (below it cos's first reduction step rounds) and of 2^-26 (below it the
    pass is exact); the closest a float32 below 2^18
    comes to a multiple of pi/2 (252.898...); random inputs in and beyond the range; the
    float32 subnormals; the specials; and, both signs, the inputs a scan of every float32 in
    [0, 2^18] found where the pass alone misrounds (testdata/trig32_fma_hard.txt: Ziv's test
    must flag each).  Two sets: the inputs the pass keeps (|x| <= 2^18), shuffled, and those
    with the others mixed in (their chunks go through lt_trig.h's code)."""
    k = np.unique(np.concatenate([np.arange(1, 40), np.geomspace(40, 166886, 60).astype(int)]))
    edges = np.concatenate([k * np.pi / 2, (k - 0.5) * np.pi / 2,
                            [2.0 ** 18, 1.0, 2.0 ** -26, 252.89820861816406]])
    near = _from_ordered((_ordered(edges.astype(np.float32))[:, None]
                          + np.arange(-40, 41)[None, :]).ravel())
    near = near[np.abs(near) <= 2.0 ** 18]
    rng = np.random.default_rng(41)
    inside = np.concatenate([rng.uniform(-300, 300, 1500), rng.uniform(-2 ** 18, 2 ** 18, 500),
                             rng.uniform(-1, 1, 300),
                             rng.uniform(-1e-6, 1e-6, 100)]).astype(np.float32)
    found = os.path.join(os.path.dirname(__file__), "testdata", "trig32_fma_hard.txt")
    with open(found) as f:
        rows = [line.split() for line in f if line.strip() and not line.startswith("#")]
    hard = np.array([int(b, 16) for n, b in rows if n == name], np.uint32).view(np.float32)
    assert hard.size > 20
    hard = np.concatenate([hard, -hard])
    tiny = np.arange(1, 3000, 7, dtype=np.uint32).view(np.float32)     # float32 subnormals
    kept = np.concatenate([near, -near, inside, hard, tiny, -tiny, np.float32([0.0, -0.0])])
    kept = kept[rng.permutation(kept.size)]
    beyond = np.concatenate([rng.uniform(2 ** 18, 1e6, 50), [2.0 ** 18 * (1 + 2.0 ** -23), 1e30,
                             3.4e38, np.inf, np.nan]]).astype(np.float32)
    mixed = np.concatenate([kept, beyond, -beyond])
    return kept, mixed[rng.permutation(mixed.size)], hard


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_float32_trig_fma_pass_every_path(name):
    """The exact float32 sin, cos and tan on every kernel path (the AVX paths compute their own
    first pass with FMA, the generic one lt_trig.h's), bit for bit against MPFR, on the inputs
    the pass keeps, on those mixed with inputs beyond 2^18, on the Ziv-flagged inputs alone and
    on a short call (one partial vector)."""
    ref_mp = REFS[name][1]
    kept, mixed, hard = _trig32_fma_inputs(name)
    ref = {b: ref_mp(v) for b, v in zip(mixed.view(np.uint32).tolist(), mixed)}
    for xs in (kept, mixed, hard, kept[:5]):
        want = np.array([ref[b] for b in xs.view(np.uint32).tolist()], np.float32)
        _same_bits_every_path(name, xs, want)


def _trig32_fast_inputs():
    """Each branch of the fast float pass: forty ulps either side of multiples of pi/2 (the
    lanes it leaves to ltm_trig_sct_f32_fast lie there; k up to the last below 2^16) and of
    odd multiples of pi/4 (where k changes), of its bound 2^16 and of 2^-12 (below it z no
    longer matters); random inputs inside and beyond; tiny and subnormal inputs; huge ones,
    inf, NaN and +-0; shuffled, so that chunks mix the pass's lanes with flagged ones."""
    k = np.unique(np.concatenate([np.arange(1, 60), np.geomspace(60, 41721, 80).astype(int)]))
    edges = np.concatenate([k * np.pi / 2, (k - 0.5) * np.pi / 2, [2.0 ** 16, 2.0 ** -12]])
    near = _from_ordered((_ordered(edges.astype(np.float32))[:, None]
                          + np.arange(-40, 41)[None, :]).ravel())
    rng = np.random.default_rng(52)
    rand = np.concatenate([rng.uniform(-10, 10, 3000), rng.uniform(-2 ** 16, 2 ** 16, 2000),
                           rng.uniform(-1e-3, 1e-3, 300), rng.uniform(-1e6, 1e6, 100),
                           [1e30, 3.4e38, np.inf, np.nan, 0.0]]).astype(np.float32)
    tiny = np.arange(1, 3000, 7, dtype=np.uint32).view(np.float32)     # float32 subnormals
    x = np.concatenate([near, rand, tiny, np.float32([2.0 ** -30, 1e-20])])
    x = np.concatenate([x, -x])
    return x[rng.permutation(x.size)]


@pytest.mark.parametrize("name", ["sin", "cos", "tan"])
def test_float32_fast_trig_every_path(name):
    """The float32 fast sin, cos and tan on every kernel path (the FMA paths' float pass with
    its fallback, the generic path's form) within the fast bound of the op table against the
    correctly rounded value, on the whole set and on a short call (one partial vector);
    sin(+-0) and tan(+-0) keep the sign, inf and NaN give NaN."""
    ref64, ref_mp = REFS[name]
    allowed = int(np.ceil(_ops.OPS[name].ulp_bound("fast")))
    x = _trig32_fast_inputs()
    for path in lt.kernel_paths():
        for xs in (x, x[:5]):
            with lt.config(kernel_path=path, mode="fast"):
                got = _call(name, xs)
            bad, max_ulp, _, worst = verify_float32.compare(
                xs, got, ref64, ref_mp, verify_float32.NEAR_MIDPOINT.get(name, 2.0 ** -45))
            assert max_ulp <= allowed, (f"{name} fast on {path}: {bad} of {xs.size} off, max "
                                        f"{max_ulp} ulp > {allowed}; worst x, got, want = {worst}")
        with lt.config(kernel_path=path, mode="fast"):
            special = _call(name, np.float32([0.0, -0.0, np.inf, -np.inf, np.nan]))
        zeros = np.float32([1.0, 1.0]) if name == "cos" else np.float32([0.0, -0.0])
        assert special[:2].view(np.uint32).tolist() == zeros.view(np.uint32).tolist(), path
        assert np.isnan(special[2:]).all(), path
