"""Measure the normwise relative error of the kernel's complex multiply, divide, square,
reciprocal and abs against mpmath (200 bits), for complex64 and complex128, beside NumPy's.

    python tools/complex_accuracy.py [N]

Operands: parts of random sign with magnitudes 2^-E .. 2^E (E = 30 for complex64, 200 for
complex128), N pairs (default 5000).  Errors are printed in units of roundoff u = eps/2;
the figures go to docs/exact-math.md.
"""

from __future__ import annotations

import sys
import warnings

import mpmath
import numpy as np

import lazytensor as lt


def main(n: int) -> None:
    warnings.simplefilter("ignore")
    mpmath.mp.prec = 200
    rng = np.random.default_rng(7)
    for dt, ft in ((np.complex64, np.float32), (np.complex128, np.float64)):
        u = float(np.finfo(ft).eps) / 2
        emax = 30 if ft is np.float32 else 200

        def draw():
            m = rng.uniform(-1, 1, (2, n)) * 2.0 ** rng.integers(-emax, emax, (2, n))
            return (m[0] + 1j * m[1]).astype(dt)

        a, b = draw(), draw()
        ta, tb = lt.asarray(a), lt.asarray(b)
        ours = {"multiply": ta * tb, "divide": ta / tb, "square": lt.square(ta),
                "reciprocal": lt.reciprocal(tb), "abs": abs(ta)}
        numpy = {"multiply": a * b, "divide": a / b, "square": np.square(a), "reciprocal": np.reciprocal(b),
                 "abs": np.abs(a)}
        exact = {"multiply": lambda x, y: x * y, "divide": lambda x, y: x / y,
                 "square": lambda x, y: x * x, "reciprocal": lambda x, y: 1 / y,
                 "abs": lambda x, y: abs(x)}
        for name, t in ours.items():
            got = np.asarray(t)
            worst = worst_np = 0.0
            for i in range(n):
                e = exact[name](mpmath.mpc(complex(a[i])), mpmath.mpc(complex(b[i])))
                if e == 0:
                    continue
                worst = max(worst, float(abs(mpmath.mpc(complex(got[i])) - e) / abs(e)) / u)
                worst_np = max(worst_np, float(abs(mpmath.mpc(complex(numpy[name][i])) - e)
                                              / abs(e)) / u)
            print(f"{dt.__name__:10} {name:10} lazytensor {worst:.3f} u   numpy {worst_np:.3f} u")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5000)
