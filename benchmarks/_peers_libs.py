"""The libraries bench_peers.py compares, as loaded in this process.

Every peer is optional, and importing one (torch, jax) takes seconds, so they are imported
by ``load_peers()`` (``_peers_impls``; only those asked for) or by the jax helper process,
which bind the attributes below.  The other modules read them by attribute at call time
(``L.lt.erf(x)`` after ``import _peers_libs as L``), never with ``from _peers_libs import
lt``, which would keep the ``None`` of import time.
"""

from __future__ import annotations

import os

try:
    import scipy
    from scipy.special import erf
except ImportError:  # pragma: no cover
    scipy = erf = None

lt = None       # lazytensor
ne = None       # numexpr
torch = None
F = None        # torch.nn.functional
jax = None
jnp = None      # jax.numpy
onnx = None
ort = None      # onnxruntime

# The command-line script: the jax helper process runs it, the report names it.
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench_peers.py")
