"""The worker threads: kept between kernels, shared by Python threads, gone after fork.
Every result is compared with NumPy (elementwise: bit for bit) or with the one-thread run."""

import multiprocessing
import threading
import time

import numpy as np
import pytest

import lazytensor as lt

N = 200_003   # well above the size where a kernel is split (64 chunks of 256)


@pytest.fixture
def threads():
    old = lt.get_num_threads()
    yield lt.set_num_threads
    lt.set_num_threads(old)


INTEL = ("intel", "avx512")
AMD = ("amd", "avx2")            # measured on Zen 3
AMD512 = ("amd", "avx512")       # measured on Zen 5
MACHINES = [INTEL, AMD, AMD512]
MACHINE_IDS = ["intel-avx512", "amd-avx2", "amd-avx512"]


@pytest.fixture
def machine_as(monkeypatch):
    """Lower kernels with the memory rules of another machine (a vendor and a kernel path;
    the kernels still run on this one: the rules only pick stores and prefetches)."""
    from lazytensor._engine import cost as _cost

    def use(vendor, path):
        monkeypatch.setattr(_cost, "_machine", _cost.Machine(vendor, path))
        lt._engine.kernel.clear_cache()
    yield use
    monkeypatch.undo()
    lt._engine.kernel.clear_cache()


def _expected(a, b):
    return a * b + np.float32(1)


def test_many_kernels_on_the_pool(threads):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((2, N)).astype(np.float32)
    x, y = lt.asarray(a), lt.asarray(b)
    for n in (2, 3, 2, 5, 1, 2):
        threads(n)
        for _ in range(20):
            np.testing.assert_array_equal(np.asarray(x * y + 1), _expected(a, b))
        s = float(lt.sum(x * y))
        threads(1)
        assert s == float(lt.sum(x * y))


def test_small_kernels_in_a_loop_on_the_pool(threads, work_estimates):
    """Calls back to back take the workers (awake between them) at sizes where a lone call
    runs on one thread: sizes about the least a thread takes, odd numbers of chunks, an
    elementwise kernel and a sum, exact mode, two inputs in turn (so that a reused output
    buffer never holds the expected values already): the bits of one thread."""
    rng = np.random.default_rng(5)
    for n in (2_047, 2 * 8 * 256 + 1, 9_999, 30_001, 100_003):
        arrays = [(rng.standard_normal(n) * 2).astype(np.float32) for _ in range(2)]
        xs = [lt.asarray(a) for a in arrays]
        with lt.mode("exact"):
            threads(1)
            refs = [np.asarray(lt.exp(-x * x) * lt.log1p(lt.abs(x))) for x in xs]
            ref_sums = [float(lt.sum(x * x)) for x in xs]
            for k in (2, 3):
                threads(k)
                for i in range(80):
                    x = xs[i % 2]
                    np.testing.assert_array_equal(
                        np.asarray(lt.exp(-x * x) * lt.log1p(lt.abs(x))), refs[i % 2])
                    assert float(lt.sum(x * x)) == ref_sums[i % 2]
        for a, ref, ref_sum in zip(arrays, refs, ref_sums):
            a64 = a.astype(np.float64)
            np.testing.assert_allclose(ref, np.exp(-a64 * a64) * np.log1p(np.abs(a64)),
                                       rtol=2e-5, atol=1e-37)
            np.testing.assert_allclose(ref_sum, (a64 * a64).sum(), rtol=1e-5)


def test_idle_workers_sleep(threads, work_estimates):
    """A worker lingers a moment after a job (about 0.1 ms), then sleeps: an idle process
    uses no CPU time."""
    threads(2)
    x = lt.asarray(np.ones(N, np.float32))
    for _ in range(50):
        np.asarray(x * x + 1)
    time.sleep(0.05)
    start = time.process_time()        # all threads of the process
    time.sleep(0.5)
    used = time.process_time() - start
    assert used < 0.05, f"{used:.3f} s of CPU time in 0.5 s of idling"


def test_python_threads_share_the_pool(threads, run_threads):
    threads(2)
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((2, N)).astype(np.float32) for _ in range(4)]

    def work(a, b):
        x, y = lt.asarray(a), lt.asarray(b)
        for _ in range(15):
            np.testing.assert_array_equal(np.asarray(x * y + 1), _expected(a, b))
            np.testing.assert_allclose(float(lt.sum(x)), a.astype(np.float64).sum(),
                                       rtol=1e-6)   # a float32 result

    run_threads(work, arrays)


def _child(queue):
    lt.set_num_threads(2)
    a = np.arange(N, dtype=np.float32)
    queue.put(np.asarray(lt.asarray(a) * 2 + 1).tobytes())


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="the platform has no fork")
def test_forked_child_runs_kernels(threads):
    threads(2)
    a = np.arange(N, dtype=np.float32)
    np.asarray(lt.asarray(a) * 3)            # the parent's workers exist now
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child, args=(queue,))
    child.start()
    got = queue.get(timeout=120)
    child.join(timeout=60)
    assert child.exitcode == 0
    np.testing.assert_array_equal(np.frombuffer(got, np.float32), a * 2 + 1)


def test_threads_do_not_share_pending_nodes():
    """A value is computed in the mode of the thread that evaluates it, so two threads that
    record the same expression get nodes of their own (one thread still shares its own)."""
    x = lt.asarray(np.linspace(-3, 3, 64, dtype=np.float32))
    mine = lt.exp(x) * 2
    assert (lt.exp(x) * 2)._node is mine._node
    theirs = []
    t = threading.Thread(target=lambda: theirs.append(lt.exp(x) * 2))
    t.start()
    t.join()
    assert theirs[0]._node is not mine._node
    with lt.mode("exact"):
        exact = mine.numpy()
    with lt.mode("fast"):
        fast = theirs[0].numpy()
    np.testing.assert_array_equal(exact, (np.exp(np.linspace(-3, 3, 64).astype(np.float32)
                                                 .astype(np.float64)).astype(np.float32) * 2))
    np.testing.assert_allclose(fast, exact, rtol=1e-6)


def test_one_pending_tensor_evaluated_by_several_threads(run_threads):
    """Evaluations are serialised: a shared pending tensor is planned and computed once,
    never planned by one thread while another gives its nodes values."""
    a = np.linspace(-4, 4, 32 * 4096, dtype=np.float32).reshape(32, 4096)
    X = lt.asarray(a)

    def softmax(x):
        e = lt.exp(x - lt.max(x, axis=1, keepdims=True))
        return e / lt.sum(e, axis=1, keepdims=True)

    ref = softmax(X).numpy().copy()
    for _ in range(20):
        shared = softmax(X)
        results = []
        run_threads(lambda: results.append(shared.numpy()), [()] * 4)
        assert len(results) == 4
        for r in results:
            assert r.tobytes() == ref.tobytes()


@pytest.mark.parametrize("n_threads", [1, 2])
def test_large_outputs_written_past_the_cache(threads, n_threads):
    """Kernels whose outputs reach 4 MiB write them with non-temporal stores from scratch
    (kernels_c/lt_kernel.c, LT_STREAM_MIN_BYTES): the same bits as NumPy, a tail shorter
    than a chunk, several outputs, 1-byte outputs, a strided input and a 2-D walk."""
    threads(n_threads)
    n = (4 << 20) // 4 + 37
    rng = np.random.default_rng(11)
    a = (rng.standard_normal(n) * 300).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    x, y = lt.asarray(a), lt.asarray(b)
    np.testing.assert_array_equal(np.asarray(x * y + 1), a * b + np.float32(1))
    u, v = x + 1, (x + 1) * y                      # one kernel, two outputs
    lt.eval(u, v)
    np.testing.assert_array_equal(np.asarray(u), a + np.float32(1))
    np.testing.assert_array_equal(np.asarray(v), (a + np.float32(1)) * b)
    big = np.concatenate([a] * 4)                  # uint8 output of 16 MiB + 148 bytes
    q = lt.astype(lt.asarray(big), lt.uint8)
    want = np.clip(np.trunc(np.nan_to_num(big, nan=0.0)), 0, 255).astype(np.uint8)
    np.testing.assert_array_equal(np.asarray(q), want)
    s = lt.asarray(big)[::2]                       # a gathered input
    np.testing.assert_array_equal(np.asarray(s * 2), big[::2] * np.float32(2))
    m = big[: 2048 * 1031].reshape(2048, 1031)     # rows of a 2-D plan, a bias per row
    c = rng.standard_normal((2048, 1)).astype(np.float32)
    np.testing.assert_array_equal(np.asarray(lt.asarray(m) - lt.asarray(c)), m - c)


@pytest.mark.parametrize("machine", MACHINES, ids=MACHINE_IDS)
@pytest.mark.parametrize("mode", ["exact", "fast"])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_large_outputs_of_costly_ops(threads, machine_as, n_threads, mode, machine):
    """Large outputs written with normal stores (a costly op writes them, or they are 8-bit:
    lazytensor/_engine/cost.py) or streamed, the rule telling which: every element the same bits as
    the same expression run on short slices, whose kernels never stream."""
    threads(n_threads)
    machine_as(*machine)
    n = (4 << 20) // 4 + 37
    a = (np.random.default_rng(12).standard_normal(n) * 3).astype(np.float32)
    x = lt.asarray(a)
    exp_plain = 3 if machine == AMD else 2       # fast exp is cheap with 16 lanes only
    exprs = {
        "gelu": (lambda v: lt.nn.gelu(v), 3),
        "tanh": (lambda v: lt.tanh(v), 3),
        "exp": (lambda v: lt.exp(v), exp_plain),
        # a multiply writes the output; with AVX-512 on AMD the sigmoid before it counts too
        "silu": (lambda v: v * lt.nn.sigmoid(v), 3 if machine == AMD512 else 0),
        "uint8": (lambda v: lt.astype(lt.clip(lt.round(v / 0.05) + 128, 0, 255), lt.uint8), 3),
    }
    made = []
    real = lt._engine.kernel.CompiledKernel.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)

    with lt.mode(mode), pytest.MonkeyPatch.context() as mp:
        mp.setattr(lt._engine.kernel.CompiledKernel, "__init__", spy)
        for name, (f, plain) in exprs.items():
            made.clear()
            whole = np.asarray(f(x))
            assert [k.program.plain_stores for k in made] == [plain], name
            step = 100_003                              # 400 KB slices: below 4 MiB
            parts = [np.asarray(f(lt.asarray(a[i:i + step]))) for i in range(0, n, step)]
            np.testing.assert_array_equal(whole, np.concatenate(parts), err_msg=name)


def test_plain_stores_rule():
    """The rule of lazytensor/_engine/cost.py on single ops: a cheap op streams in both modes, a
    transcendental only in fast mode when it is cheap there (with 16 lanes, not 8), a costly
    one never, and 8-bit outputs never.  With AVX-512 on AMD the kernel's ops count together,
    not only those writing outputs."""
    from lazytensor._engine.cost import Machine, plain_stores
    add, mul64 = ("add", "float32"), ("multiply", "float64")
    gelu, exp, sigmoid = ("gelu", "float32"), ("exp", "float32"), ("sigmoid", "float32")
    for on in (Machine(*m) for m in MACHINES):
        assert plain_stores([add], [add], 4, on) == 0
        assert plain_stores([add, mul64], [add, mul64], 12, on) == 0
        assert plain_stores([gelu], [gelu], 4, on) == 3
        assert plain_stores([add, gelu], [add, gelu], 8, on) == 3
        assert plain_stores([("cast", "float32_uint8")], [("cast", "float32_uint8")], 1, on) == 3
    assert plain_stores([exp], [exp], 4, Machine(*INTEL)) == 2
    assert plain_stores([exp], [exp], 4, Machine(*AMD)) == 3
    assert plain_stores([exp], [exp], 4, Machine(*AMD512)) == 2
    assert plain_stores([exp], [exp], 4, Machine("intel", "generic")) == 3
    assert plain_stores([exp], [exp], 4, Machine("other", "avx512")) == 2
    # x * sigmoid(x): a multiply writes the output
    silu = [sigmoid, ("multiply", "float32")]
    assert plain_stores(silu[1:], silu, 4, Machine(*INTEL)) == 0
    assert plain_stores(silu[1:], silu, 4, Machine(*AMD)) == 0
    assert plain_stores(silu[1:], silu, 4, Machine(*AMD512)) == 3
    # where(x < y, 2x, y - 1): four cheap ops stream everywhere
    where = [("subtract", "float32"), ("multiply", "float32"), ("less", "float32"),
             ("where", "x4")]
    for m in MACHINES:
        assert plain_stores(where[3:], where, 4, Machine(*m)) == 0


def test_prefetch_rule():
    """The rules of lazytensor/_engine/cost.py.  Intel: up to four inputs read in place, and either
    a cheap op reading them first with more ops after it, or a costly one (per mode) however
    many ops; five inputs, a single cheap op, or a first reader of middling cost turn it off.
    AMD: one or two inputs in place and a cheap first reader (or a reduction alone), however
    many ops."""
    from lazytensor._engine.cost import Machine, chunk_passes, prefetch_bits
    intel, amd, amd512 = Machine(*INTEL), Machine(*AMD), Machine(*AMD512)
    assert chunk_passes([("quantize", "float32_uint8")]) == 2
    assert chunk_passes([("exp", "float32"), ("multiply", "float32")]) == 2
    assert chunk_passes([]) == 0
    assert prefetch_bits(1, 6, ("multiply", "float32"), intel) == 3
    assert prefetch_bits(1, 2, ("add", "float64"), intel) == 3
    assert prefetch_bits(3, 2, ("multiply", "float32"), intel) == 3
    assert prefetch_bits(4, 2, ("multiply", "float32"), intel) == 3
    assert prefetch_bits(5, 2, ("multiply", "float32"), intel) == 0
    assert prefetch_bits(2, 4, ("less", "float32"), intel) == 3
    assert prefetch_bits(1, 1, ("add", "float32"), intel) == 0
    assert prefetch_bits(1, 0, None, intel) == 0
    assert prefetch_bits(1, 2, ("exp", "float32"), intel) == 3     # cheap fast, costly exact
    assert prefetch_bits(1, 2, ("sigmoid", "float32"), intel) == 2  # costly in exact mode only
    assert prefetch_bits(1, 1, ("exp", "float32"), intel) == 2
    assert prefetch_bits(1, 1, ("gelu", "float32"), intel) == 3     # costly in both modes
    assert prefetch_bits(3, 1, ("log", "float32"), intel) == 3
    assert prefetch_bits(5, 1, ("log", "float32"), intel) == 0
    assert prefetch_bits(1, 1, ("gelu", "float32"), amd) == 0       # AMD: costly ops do not
    assert prefetch_bits(1, 1, ("add", "float32"), amd) == 3
    assert prefetch_bits(1, 0, None, amd) == 3
    assert prefetch_bits(2, 4, ("less", "float32"), amd) == 3
    assert prefetch_bits(3, 2, ("multiply", "float32"), amd) == 0
    assert prefetch_bits(0, 2, ("multiply", "float32"), amd) == 0
    assert prefetch_bits(1, 2, ("exp", "float32"), amd) == 0       # 8 lanes: not cheap
    assert prefetch_bits(1, 2, ("add", "float64"), amd) == 3
    assert prefetch_bits(1, 1, ("add", "float32"), amd512) == 3
    assert prefetch_bits(3, 2, ("multiply", "float32"), amd512) == 0
    assert prefetch_bits(1, 2, ("exp", "float32"), amd512) == 1    # 16 lanes: cheap in fast mode
    assert prefetch_bits(1, 1, ("add", "float32"), Machine("other", "avx2")) == 0  # Intel's


@pytest.mark.parametrize("machine", MACHINES, ids=MACHINE_IDS)
def test_prefetch_bits_of_kernels(machine_as, machine):
    """The kernels of the benchmark's workloads carry the rule's prefetch bits, counting as
    streamed only inputs read in place and not broadcast (a bias, per row or per column, is
    not), and their values do not depend on them."""
    machine_as(*machine)
    amd = machine[0] == "amd"
    n = 3000
    rng = np.random.default_rng(5)
    a, b, c = (rng.standard_normal(n).astype(np.float32) for _ in range(3))
    x, y, z = lt.asarray(a), lt.asarray(b), lt.asarray(c)
    exprs = {
        "a*b+c": (lambda: x * y + z, 0 if amd else 3),
        "exp_log1p": (lambda: lt.exp(-x * x) * lt.log1p(lt.abs(x)), 3),
        # one fused op that takes each chunk in two passes (chunk_passes): as two ops
        "quantize": (lambda: lt.astype(lt.clip(lt.round(x / 0.05) + 128, 0, 255), lt.uint8), 3),
        "bias per row": (lambda: lt.nn.relu(lt.reshape(x, (-1, 100)) + lt.reshape(z[:30], (30, 1))), 3),
        "bias per column": (lambda: lt.maximum(lt.reshape(x, (-1, 100)) + z[:100], 0), 3),
        "transposed": (lambda: lt.reshape(x, (-1, 100)).T + 1, 0),
        "where": (lambda: lt.where(x < y, 2 * x, y - 1), 3),
        "x + 1": (lambda: x + 1, 3 if amd else 0),
        # exact exp is costly on Intel; fast exp is cheap on AMD's 16 lanes
        "exp": (lambda: lt.exp(x), 1 if machine == AMD512 else (0 if amd else 2)),
        "gelu": (lambda: lt.nn.gelu(x), 0 if amd else 3),
        "silu": (lambda: x * lt.nn.sigmoid(x), 0 if amd else 2),
        "sum": (lambda: lt.sum(x), 3 if amd else 0),
        "sum of exp(x - 1)": (lambda: lt.sum(lt.exp(x - 1)), 3),
    }
    made = []
    real = lt._engine.kernel.CompiledKernel.__init__

    def spy(self, *args, **kwargs):
        real(self, *args, **kwargs)
        made.append(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lt._engine.kernel.CompiledKernel, "__init__", spy)
        for name, (f, bits) in exprs.items():
            made.clear()
            want = np.asarray(f())
            assert [k.program.prefetch for k in made] == [bits], name
            for k in made:                       # the other setting: the same values
                k._proto.prefetch = k._call[0].prefetch = 3 - bits
            np.testing.assert_array_equal(np.asarray(f()), want, err_msg=name)
        lt._engine.kernel.clear_cache()
