"""How a kernel should treat memory: streaming or normal stores for large outputs, and
whether it prefetches the inputs it reads in place.

Large outputs are written with non-temporal stores (kernels_c/lt_kernel.c,
lt_stream_outputs): each chunk's outputs go to scratch in L1 and are copied out with stores
that skip the cache, which saves the read of each line a normal store makes.  Measured at
10^7 float32 elements on the Xeon with AVX-512 (``benchmarks/bench_stores.py``, both ways
in one process), that pays when the op writing an output is cheap (x + 1 1.4-1.8x faster,
exp 1.04-1.18x, x * sigmoid(x), a*b+c, exp(-x*x)*log1p|x| 1.03-1.17x), and loses when that op is costly
(gelu, erf, the tanh-form gelu, tanh, sigmoid, ``nn.silu``: 0.88-0.97x; also each
exact-mode transcendental) or
when the outputs are 8-bit (quantize to uint8: 0.91-0.96x): a costly op spreads its stores
over its run, where the lines' reads overlap the arithmetic, and an 8-bit output saves one
byte of read per element against the 4 or more its inputs take.  ``plain_stores`` applies
that rule from the time per element of each op function in L1 (``NS_PER_ELEMENT``, float32
on the AVX-512 path, printed by ``python tools/op_costs.py``; on the AVX2 path an op takes
about twice that, with half the lanes: ``PATH_FACTOR``).

Inputs read in place can be prefetched a few chunks ahead (lt_prefetch_ahead).  On the Xeon
with AVX-512 (Sapphire Rapids), at 10^7 float32 elements whose data comes from memory
(``benchmarks/bench_stores.py --knob prefetch --flush 400``, both ways in one process), that
pays in three cases.  When a cheap op reads the input and later ops (or a second loop of the
same op function: ``TWO_PASS_OPS``) compute on the chunk: the hardware prefetcher sees no new
misses while they run, so memory idles (where, exp(-x*x)*log1p|x|: 1.07-1.11x; quantize 1.04x).
When the op reading it first is costly, a long chain of dependent operations per element (fast
log, atanh and tan 2.3-2.8x, gelu and cos 1.7x, sin 1.4x; in exact mode nearly every
transcendental, exp 2.6x, sigmoid 1.9x): such a loop needs many iterations in flight to reach
its speed in L1 and stalls on loads that miss it.  And when two to four inputs are read in
place (a*b+c 1.29x, the sum of four arrays 1.20x).  It costs time where one cheap op reads the
input and does all the work (x + 1, exp, hardswish, a plain sum or a row maximum: 0.70-0.87x):
the hardware prefetcher keeps up there and the requests only take fill buffers.  In between
(fast sigmoid, tanh, expm1, erf: 0.96-0.99x) it makes no difference.  ``prefetch_bits`` applies
that rule with the costs of ``NS_PER_ELEMENT``: cheap is under 0.3 ns, costly from 0.6 ns
(figures and commands: docs/architecture.md).  With the data in the Xeon's large L3 instead (no
``--flush``), the prefetch gained or tied everywhere; the rule follows the case where the data
does not fit.  That is the Xeon's rule.  On an AMD EPYC (Zen 3) the prefetch also paid for
single cheap ops, plain sums and maxima (1.2-1.35x), but lost with three streamed inputs and
was neutral behind a costly first reader (fast mode), so AMD CPUs get a rule of their own
(``RULES``).
An AMD EPYC with AVX-512 (Zen 5, 36 GB/s on one core, more than twice the others) also
lost with streamed outputs wherever the kernel's ops together cost more than a cheap op or
two: x * sigmoid(x) and exp(-x*x)*log1p|x|, whose outputs a multiply writes, took 0.88-0.96x
the time with normal stores.  There a kernel streams only when all its ops together stay
under the threshold (``MemoryRules.whole_kernel``).  The prefetch these rules ask
for is skipped at run time for inputs spanning less than 8 MiB in all (``LT_PREFETCH_MIN_BYTES``
in lt_kernel.c): those are in the caches from the second call on.
"""

from __future__ import annotations

from dataclasses import dataclass

from .native import CPU_VENDOR, kernel_paths
from .ops import OPS_LIST, SIMPLE

# ns per element (fast mode, exact mode), one float32 op function over a chunk in L1: each
# op's row (ops.OpDef.cost), and the entries that lowering makes of them (lower.py).  Where
# the figures come from and how they were checked: docs/architecture.md, "The cost table".
NS_PER_ELEMENT = {**{op.name: op.cost for op in OPS_LIST},
                  "divide_by_scalar": (0.046, 0.22)}
SIMPLE_NS = SIMPLE[0]     # entries not listed (casts, where, copies)
FLOAT64_FACTOR = 2.0      # half the lanes per vector
# the table's times on another kernel path: fewer lanes per vector, more time per element
PATH_FACTOR = {"avx512": 1.0, "avx2": 2.0, "generic": 4.0}
STREAM_MAX_NS = 0.3       # a streamed output's writers (or kernel: MemoryRules) cost less
STREAM_MIN_OUT_BYTES = 2  # and the outputs take at least this many bytes per element
# op functions that take each chunk in two loops, the second over values in registers or L1
# while memory idles as it does behind a second op function (the fused quantize: the
# rounded quotients, then the saturating cast)
TWO_PASS_OPS = frozenset({"quantize"})


@dataclass(frozen=True)
class MemoryRules:
    """When streaming stores and prefetches pay, for one kind of memory system (the times are
    those of ``op_ns`` on the machine's kernel path)."""
    # prefetch the inputs read in place when
    max_streams: int       # at most this many of them (at least one)
    min_passes: int        # at least this many passes over each chunk (chunk_passes)
    first_max_ns: float    # the first op reading such an input costs less than this
    # ... or, whatever the number of passes, that first op costs at least this
    costly_min_ns: float = float("inf")
    # stream large outputs when the ops writing them (or, if whole_kernel, all the kernel's
    # ops together) cost less than STREAM_MAX_NS
    whole_kernel: bool = False


# Per CPU vendor and, where they differ, kernel path (figures: the module docstring and
# docs/architecture.md).  A CPU of another vendor, or none known, gets Intel's rules, the ones
# measured first; AMD's with AVX-512 were measured on Zen 5 (Zen 4 would get them untested).
RULES = {
    ("intel", None): MemoryRules(max_streams=4, min_passes=2, first_max_ns=0.3,
                                 costly_min_ns=0.6),
    ("amd", None): MemoryRules(max_streams=2, min_passes=0, first_max_ns=0.3),
    ("amd", "avx512"): MemoryRules(max_streams=2, min_passes=0, first_max_ns=0.3,
                                   whole_kernel=True),
}


@dataclass(frozen=True)
class Machine:
    vendor: str                   # "intel", "amd" or another
    path: str                     # a key of PATH_FACTOR: the kernel path kernels run on

    @property
    def rules(self) -> MemoryRules:
        return RULES.get((self.vendor, self.path)) or RULES.get((self.vendor, None)) \
            or RULES[("intel", None)]


_machine = None


def machine() -> Machine:
    """This machine: its CPU vendor and the best kernel path it runs (the default one, unless
    LAZYTENSOR_KERNEL_PATH picks another: the rules still follow the best, so that they do
    not depend on which path happened to be set when the first kernel was lowered)."""
    global _machine
    if _machine is None:
        best = kernel_paths()[-1]
        _machine = Machine(CPU_VENDOR, best if best in PATH_FACTOR else "generic")
    return _machine


def op_ns(op: str, dtype: str, exact: bool, path: str) -> float:
    """The time per element of one op function on kernel path ``path`` (an estimate for
    unlisted ops)."""
    ns = NS_PER_ELEMENT[op][exact] if op in NS_PER_ELEMENT else SIMPLE_NS
    ns *= PATH_FACTOR[path]
    return ns * FLOAT64_FACTOR if dtype == "float64" else ns


def work_ps(ops, on: Machine = None) -> tuple:
    """(fast, exact): the estimated picoseconds per element, on one thread, of the op
    functions ``ops`` ((op, dtype) pairs; a reduction's is costed as an unlisted op) on
    machine ``on`` (default: this one).  With what moving the data costs (lt_kernel.c,
    lt_work_ns), it decides whether a run pays for waking sleeping worker threads."""
    on = on or machine()
    return tuple(max(1, min(2**31 - 1, round(1000 * sum(op_ns(op, dt, exact, on.path)
                                                        for op, dt in ops))))
                 for exact in (False, True))


def _mode_bits(holds) -> int:
    """Bit 0 if ``holds(False)`` (fast mode), plus bit 1 if ``holds(True)`` (exact mode)."""
    return (1 if holds(False) else 0) | (2 if holds(True) else 0)


def plain_stores(writers, ops, out_bytes: int, on: Machine = None) -> int:
    """Bit 0 (fast mode) and bit 1 (exact mode): a kernel whose outputs are written by the
    ops ``writers`` ((op, dtype) pairs), that runs the ops ``ops`` per chunk (the writers
    among them) and whose outputs take ``out_bytes`` bytes per element writes them with
    normal stores, however large, on machine ``on`` (default: this one)."""
    if out_bytes < STREAM_MIN_OUT_BYTES:
        return 3
    on = on or machine()
    if on.rules.whole_kernel:
        return _mode_bits(lambda exact: sum(op_ns(op, dt, exact, on.path) for op, dt in ops)
                          >= STREAM_MAX_NS)
    return _mode_bits(lambda exact: any(op_ns(op, dt, exact, on.path) >= STREAM_MAX_NS
                                        for op, dt in writers))


def chunk_passes(ops) -> int:
    """The passes over each chunk of a kernel running the op functions ``ops`` ((op, dtype)
    pairs): one per op function, two for those in TWO_PASS_OPS."""
    return sum(2 if op in TWO_PASS_OPS else 1 for op, _ in ops)


def prefetch_bits(streams: int, passes: int, first_reader, on: Machine = None) -> int:
    """Bit 0 (fast mode) and bit 1 (exact mode): a kernel that reads ``streams`` inputs in
    place and makes ``passes`` passes over each chunk (``chunk_passes``), ``first_reader``
    ((op, dtype)) the first op function to read such an input (None: only a reduction reads
    it), prefetches its inputs ahead of their use on machine ``on`` (default: this one)."""
    on = on or machine()
    rules = on.rules
    if not 1 <= streams <= rules.max_streams:
        return 0
    many = passes >= rules.min_passes
    if first_reader is None:
        return 3 if many else 0
    op, dtype = first_reader

    def pays(exact):
        ns = op_ns(op, dtype, exact, on.path)
        return ns >= rules.costly_min_ns or (many and ns < rules.first_max_ns)
    return _mode_bits(pays)
