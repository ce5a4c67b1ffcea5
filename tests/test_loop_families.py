"""Loop families and walks of the kernel: every way an input can be laid out gives NumPy's
bits, at 1 and 2 threads.

The kernel reads an input in place, fills it (a value per row), gathers it through its
strides, or -- for a load read across its rows, such as X.T -- stages blocks of it into a
per-thread panel and runs the rows' segments in another order (the tiled walk).  These only
move data, so the results must be the same bits as NumPy's for ops that are one correctly
rounded operation (add, multiply) or exact (integer wrap-around, max, casts).  Shapes are
chosen around the chunk (256), the panel of the tiled walk (40 rows x 256 columns, 48 x 128
for 8-byte values), rows that divide the chunk (chunks of whole rows) and the thread split (a
range starts inside a row)."""

import numpy as np
import pytest

import lazytensor as lt

THREADS = (1, 2)
# (rows, columns) of the result; the transposed input is (columns, rows) in memory
SHAPES = [(1, 64), (2, 64), (3, 1000), (1000, 3), (64, 65), (65, 64), (257, 259),
          (63, 257), (129, 513), (300, 260), (17, 4097), (4097, 17), (70, 300), (41, 257),
          (49, 129), (50, 40), (257, 47), (63, 63), (9, 39),
          # rows dividing the chunk: chunks of whole rows (gathered row by row)
          (32, 32), (100, 8), (9, 16), (7, 4), (3, 256)]
DTYPES = ["int8", "uint8", "int16", "float16", "float32", "int32", "float64", "int64"]


def values(rng, shape, dtname):
    dt = np.dtype(dtname)
    if dt.kind == "f":
        return (rng.standard_normal(shape) * 8).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, endpoint=True, dtype=dt)


def same_bits(got, expected):
    got = np.asarray(got)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    assert got.tobytes() == np.ascontiguousarray(expected).tobytes()


def at_threads(build):
    out = []
    for t in THREADS:
        with lt.config(num_threads=t):
            out.append(np.asarray(build()))
    return out


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtname", DTYPES)
def test_transposed_plus_dense(shape, dtname):
    rng = np.random.default_rng(1)
    r, c = shape
    X = values(rng, (c, r), dtname)
    Y = values(rng, (r, c), dtname)
    for got in at_threads(lambda: lt.asarray(X.T) + lt.asarray(Y)):
        same_bits(got, X.T + Y)
    # both inputs transposed, and a product
    Z = values(rng, (c, r), dtname)
    for got in at_threads(lambda: lt.asarray(X.T) * lt.asarray(Z.T)):
        same_bits(got, X.T * Z.T)


@pytest.mark.parametrize("path", lt.kernel_paths())
@pytest.mark.parametrize("dtname,shape", [("float32", (1031, 1029)), ("float64", (731, 733)),
                                          ("uint8", (2053, 2051)), ("int16", (1451, 1449))])
def test_large_transposed_outputs(path, dtname, shape):
    # 4 MiB and more of output: the tiled walk streams it and prefetches the dense input
    rng = np.random.default_rng(4)
    r, c = shape
    X = values(rng, (c, r), dtname)
    Y = values(rng, (r, c), dtname)
    with lt.config(kernel_path=path):
        for got in at_threads(lambda: lt.asarray(X.T) + lt.asarray(Y)):
            same_bits(got, X.T + Y)
        # two outputs of one kernel
        for t in THREADS:
            with lt.config(num_threads=t):
                s, d = lt.asarray(X.T) + lt.asarray(Y), lt.asarray(X.T) - lt.asarray(Y)
                lt.eval(s, d)
                same_bits(s, X.T + Y)
                same_bits(d, X.T - Y)


@pytest.mark.parametrize("path", lt.kernel_paths())
@pytest.mark.parametrize("dtname,shape,threads", [
    ("float32", (1024, 1033), (1, 2, 3)),      # X's rows 4 KiB apart; rows of 1033 (9 mod 16)
    ("float32", (1043, 1030), (1, 3)),         # the last band of 19 rows (16 + 3)
    ("float32", (16, 70001), (1, 2, 20)),      # 20 threads: ranges inside one row
    ("float64", (1003, 525), (1, 2)),          # 8-byte outputs: runs of 8-element lines
])
def test_large_transposed_outputs_in_line_aligned_runs(path, dtname, shape, threads):
    # a streamed output's rows are cut at its 64-byte lines: a head run in the first block,
    # then runs of whole lines reaching into the next block's columns (lt_run_tiled)
    rng = np.random.default_rng(5)
    r, c = shape
    X = values(rng, (c, r), dtname)
    Y = values(rng, (r, c), dtname)
    with lt.config(kernel_path=path):
        for t in threads:
            with lt.config(num_threads=t):
                same_bits(lt.asarray(X.T) + lt.asarray(Y), X.T + Y)
                # rows one element shorter: other line boundaries in each row
                same_bits(lt.asarray(X.T[:, 1:]) * lt.asarray(Y[:, 1:]), X.T[:, 1:] * Y[:, 1:])
        # outputs of two sizes (no aligned runs) from one kernel
        with lt.config(num_threads=2):
            s, m = lt.asarray(X.T) - lt.asarray(Y), lt.asarray(X.T) < lt.asarray(Y)
            lt.eval(s, m)
            same_bits(s, X.T - Y)
            same_bits(m, X.T < Y)


@pytest.mark.parametrize("shape", [(3, 1000), (257, 259), (130, 300), (64, 64), (300, 70)])
@pytest.mark.parametrize("dtname", ["uint8", "int16", "float32", "float64"])
def test_negative_and_stepped_strides(shape, dtname):
    rng = np.random.default_rng(2)
    r, c = shape
    m = max(r, c)
    big = values(rng, (2 * m + 1, 2 * m + 1), dtname)
    views = [big[::-2, ::2].T,                 # transposed, negative step along the row
             big[1::2, ::-2].T,                # transposed, reversed rows
             big[: 2 * c : 2, : r][::-1].T,    # transposed, both reversed
             big.T[:r, ::-1][:, :c],           # transposed and reversed columns
             big[:r, :c][::-1, ::-1]]          # dense rows read backwards
    Y = values(rng, (r, c), dtname)
    for V in views:
        V = V[:r, :c]
        assert V.shape == (r, c)
        for got in at_threads(lambda: lt.asarray(V) + lt.asarray(Y)):
            same_bits(got, V + Y)
        for got in at_threads(lambda: lt.asarray(Y) - lt.asarray(V)):
            same_bits(got, Y - V)


@pytest.mark.parametrize("n", [1, 2, 7, 255, 256, 257, 511, 1000, 4095, 4096, 4097, 40_001])
@pytest.mark.parametrize("dtname", ["int8", "float16", "float32", "float64"])
def test_one_dimension_reversed_and_stepped(n, dtname):
    rng = np.random.default_rng(3)
    x = values(rng, 2 * n + 1, dtname)
    y = values(rng, n, dtname)
    for v in (x[:n][::-1], x[::-2][:n], x[::2][:n], x[2 * n::-2][:n]):
        for got in at_threads(lambda: lt.asarray(v) + lt.asarray(y)):
            same_bits(got, v + y)


@pytest.mark.parametrize("shape", [(3, 1000), (1000, 3), (257, 259), (9766, 1024), (40, 4097),
                                   (300, 100), (1, 300), (300, 1)])
@pytest.mark.parametrize("dtname", ["int8", "float16", "float32", "float64"])
def test_value_per_row_and_row_broadcast(shape, dtname):
    rng = np.random.default_rng(4)
    r, c = shape
    X = values(rng, (r, c), dtname)
    b = values(rng, (r, 1), dtname)
    b2 = values(rng, (r, 1), dtname)
    row = values(rng, (1, c), dtname)
    for got in at_threads(lambda: lt.maximum(lt.asarray(X) + lt.asarray(b), lt.asarray(row))):
        same_bits(got, np.maximum(X + b, row))
    # two value-per-row inputs in one program, and one that is a broadcast view
    per_row = np.broadcast_to(values(rng, (r,), dtname), (c, r)).T      # strides (s, 0)
    for got in at_threads(lambda: (lt.asarray(X) * lt.asarray(b2) + lt.asarray(per_row))
                          - lt.asarray(b)):
        same_bits(got, (X * b2 + per_row) - b)


@pytest.mark.parametrize("shape", [(3, 1000), (257, 259), (300, 260), (1000, 3)])
def test_mixed_dtypes_one_program(shape):
    rng = np.random.default_rng(5)
    r, c = shape
    X = values(rng, (c, r), "float32")
    Y = values(rng, (r, c), "int16")
    B = values(rng, (c, r), "int8")
    b = values(rng, (r, 1), "float64")
    h = values(rng, (c, r), "float16")

    def build():
        return (lt.asarray(X.T) * lt.asarray(Y) + lt.asarray(b),
                lt.astype(lt.asarray(B.T), lt.int32) + lt.asarray(Y),
                lt.asarray(h.T) + lt.asarray(X.T))
    for t in THREADS:
        with lt.config(num_threads=t):
            got = [np.asarray(v) for v in build()]
        same_bits(got[0], X.T * Y + b)
        same_bits(got[1], B.T.astype(np.int32) + Y)
        same_bits(got[2], (h.T.astype(np.float32) + X.T))


@pytest.mark.parametrize("shape", [(3, 1000), (257, 259), (130, 300), (64, 4097), (1000, 3)])
@pytest.mark.parametrize("dtname", ["int16", "float32", "float64"])
def test_fused_reductions_over_transposed_inputs(shape, dtname):
    rng = np.random.default_rng(6)
    r, c = shape
    X = values(rng, (c, r), dtname)
    Y = values(rng, (r, c), dtname)
    Xc = np.ascontiguousarray(X.T)
    for axis in (0, 1, None):
        for t in THREADS:
            with lt.config(num_threads=t):
                m = np.asarray(lt.max(lt.asarray(X.T) + lt.asarray(Y), axis=axis))
                s_t = np.asarray(lt.sum(lt.asarray(X.T) * lt.asarray(Y), axis=axis))
                s_c = np.asarray(lt.sum(lt.asarray(Xc) * lt.asarray(Y), axis=axis))
            same_bits(m, np.max(X.T + Y, axis=axis))
            # the combination order is the plan's: the same for the copy and the view
            same_bits(s_t, s_c)
            if np.dtype(dtname).kind == "i":
                same_bits(s_t, np.sum(X.T * Y, axis=axis))


def test_quantize_and_friends_match_numpy():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(70_001) * 4).astype(np.float32)
    x[:8] = [np.nan, np.inf, -np.inf, 6.375, -6.375, 0.025, -0.025, 1e30]
    y = (rng.standard_normal(70_001)).astype(np.float32)
    ref = np.clip(np.round(x[1:] / np.float32(0.05)) + np.float32(128),
                  np.float32(0), np.float32(255)).astype(np.uint8)
    for t in THREADS:
        with lt.config(num_threads=t):
            q = np.asarray(lt.astype(lt.clip(lt.round(lt.asarray(x) / 0.05) + 128, 0, 255),
                                     lt.uint8))
            w = lt.where(lt.asarray(x) < lt.asarray(y), 2 * lt.asarray(x), lt.asarray(y) - 1)
            h = lt.asarray(x) * lt.clip(lt.asarray(x) + 3, 0, 6) / 6
        assert q[0] == 0                      # NaN casts to 0
        same_bits(q[1:], ref)
        same_bits(w, np.where(x < y, np.float32(2) * x, y - np.float32(1)))
        with np.errstate(invalid="ignore"):
            hr = x * np.clip(x + np.float32(3), np.float32(0), np.float32(6)) / np.float32(6)
        hr[np.isnan(hr)] = np.nan             # lazytensor's NaN is the canonical one
        same_bits(h, hr)


@pytest.mark.parametrize("shape", [(3, 1000), (257, 259), (1000, 3), (40, 1024)])
@pytest.mark.parametrize("dtname", ["int32", "float32"])
def test_fused_reductions_over_value_per_row(shape, dtname):
    rng = np.random.default_rng(8)
    r, c = shape
    X = values(rng, (r, c), dtname)
    b = values(rng, (r, 1), dtname)
    for axis in (0, 1, None):
        for t in THREADS:
            with lt.config(num_threads=t):
                m = np.asarray(lt.max(lt.asarray(X) - lt.asarray(b), axis=axis))
                s = np.asarray(lt.sum(lt.asarray(X) + lt.asarray(b), axis=axis))
            same_bits(m, np.max(X - b, axis=axis))
            if dtname == "int32":
                same_bits(s, np.sum((X + b).astype(np.int64), axis=axis))
