"""The cost rules (lazytensor/_engine/cost.py) on their own, against what their docstrings and
docs/architecture.md promise: the figures come from the rows, scale by path and dtype, and
each rule answers per mode (bit 0 fast, bit 1 exact)."""

import pytest

from lazytensor._engine import cost, native
from lazytensor._engine.ops import OPS_LIST

INTEL_AVX512 = cost.Machine("intel", "avx512")
AMD_AVX2 = cost.Machine("amd", "avx2")


def test_this_machine_is_the_best_path_and_the_cpu_vendor():
    m = cost.machine()
    assert m.vendor == native.CPU_VENDOR
    best = native.kernel_paths()[-1]
    assert m.path == (best if best in cost.PATH_FACTOR else "generic")


@pytest.mark.parametrize("exact", [False, True])
def test_op_ns_scales_by_path_and_dtype(exact):
    for op in OPS_LIST:
        base = op.cost[exact]
        assert cost.op_ns(op.name, "float32", exact, "avx512") == pytest.approx(base)
        assert cost.op_ns(op.name, "float32", exact, "generic") == pytest.approx(
            base * cost.PATH_FACTOR["generic"])
        assert cost.op_ns(op.name, "float64", exact, "avx2") == pytest.approx(
            base * cost.PATH_FACTOR["avx2"] * cost.FLOAT64_FACTOR)
    assert cost.op_ns("cast", "float32", exact, "avx512") == cost.SIMPLE_NS   # not a row


def test_work_ps_adds_the_ops_in_picoseconds_per_mode(work_estimates):
    ops = [("exp", "float32"), ("add", "float32")]
    fast, exact = cost.work_ps(ops, INTEL_AVX512)
    assert fast == round(1000 * (cost.NS_PER_ELEMENT["exp"][0] + cost.NS_PER_ELEMENT["add"][0]))
    assert exact == round(1000 * (cost.NS_PER_ELEMENT["exp"][1] + cost.NS_PER_ELEMENT["add"][1]))
    assert cost.work_ps([], INTEL_AVX512) == (1, 1)                 # never 0 (unknown)
    huge = [("pow", "float64")] * 10**6
    assert cost.work_ps(huge, INTEL_AVX512) == (2**31 - 1, 2**31 - 1)   # fits an int32


def test_small_outputs_are_always_written_with_normal_stores():
    assert cost.plain_stores([("exp", "float32")], [("exp", "float32")], 1, AMD_AVX2) == 3


@pytest.mark.parametrize("on", [INTEL_AVX512, AMD_AVX2], ids=["intel", "amd"])
def test_a_costly_writer_keeps_normal_stores_and_a_cheap_one_streams(on):
    cheap, costly = [("add", "float32")], [("pow", "float32")]
    assert cost.plain_stores(cheap, cheap, 8, on) == 0
    assert cost.plain_stores(costly, costly, 8, on) == 3


def test_chunk_passes_count_the_two_pass_entries_twice():
    assert cost.chunk_passes([("add", "float32"), ("exp", "float32")]) == 2
    two = next(iter(cost.TWO_PASS_OPS))
    assert cost.chunk_passes([(two, "uint8"), ("add", "float32")]) == 3


def test_prefetch_needs_a_stream_within_the_rules():
    for on in (INTEL_AVX512, AMD_AVX2):
        assert cost.prefetch_bits(0, 4, ("exp", "float32"), on) == 0
        assert cost.prefetch_bits(on.rules.max_streams + 1, 4, ("exp", "float32"), on) == 0
    # Intel: a costly first reader (pow: several ns in both modes) pays for the prefetch; AMD:
    # a cheap first reader does (docs/architecture.md, the store and prefetch rules)
    assert cost.prefetch_bits(1, 1, ("pow", "float32"), INTEL_AVX512) == 3
    assert cost.prefetch_bits(1, 1, ("add", "float32"), AMD_AVX2) == 3
    assert cost.prefetch_bits(1, 1, ("pow", "float32"), AMD_AVX2) == 0
