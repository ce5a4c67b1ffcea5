"""Copies, pickles and the caller's arrays: a tensor never reads memory it no longer owns or
a shape it did not record, and threads never share a pending node (found by a fuzz sweep)."""

import copy
import gc
import pickle
import threading

import numpy as np
import pytest

import lazytensor as lt


def _reused_buffers(x):
    """Evaluate a few results the size of ``x`` and drop them, so that the pool holds
    buffers that the next results will reuse."""
    for _ in range(3):
        t = x * 2.0
        np.asarray(t)
        for _ in range(3):
            np.asarray(t + 1.0)
    return t


@pytest.mark.parametrize("how", ["deepcopy", "copy", "pickle"])
def test_copies_and_pickles_hold_the_value(how):
    x = lt.asarray(np.arange(65536, dtype=np.float32))
    t = _reused_buffers(x)
    c = {"deepcopy": copy.deepcopy, "copy": copy.copy,
         "pickle": lambda v: pickle.loads(pickle.dumps(v))}[how](t)
    del t
    gc.collect()
    np.asarray(x * -7.0)            # takes the buffer the original result had
    lt.empty_cache()
    want = np.arange(4, dtype=np.float32) * 2 + 1
    np.testing.assert_array_equal(np.asarray(c + 1.0)[:4], want)
    assert c.dtype == np.float32 and c.shape == (65536,)


def test_a_pending_tensor_pickles_its_value_and_a_node_does_not_pickle():
    x = lt.asarray(np.linspace(0, 1, 300))
    y = lt.exp(x) / 3                 # pending: pickling evaluates it
    np.testing.assert_array_equal(np.asarray(pickle.loads(pickle.dumps(y))), np.asarray(y))
    with pytest.raises(TypeError, match="graph node cannot be copied or pickled"):
        copy.deepcopy(y._node)


def test_reshaping_the_callers_array_in_place_does_not_change_the_tensor():
    a = np.arange(6.0)
    x = lt.asarray(a)
    y = x + 1
    a.shape = (2, 3)                  # the tensor recorded shape (6,)
    np.testing.assert_array_equal(np.asarray(y), np.arange(6.0) + 1)
    assert x.shape == (6,) and np.asarray(x).shape == (6,)
    assert float(lt.sum(x, axis=0)) == 15.0
    a[0, 0] = 100.0                   # writing values is still seen (docs: asarray without a copy)
    assert float(np.asarray(x)[0]) == 100.0


def test_astype_copy_true_to_the_same_dtype_is_a_copy():
    a = np.arange(4, dtype=np.float32)
    y = lt.astype(lt.asarray(a), lt.float32, copy=True)
    before = np.array(y)
    a[:] = -1
    np.testing.assert_array_equal(np.asarray(y), before)
    assert not np.shares_memory(np.asarray(y), a)
    x = lt.asarray(a)
    assert lt.astype(x, lt.float32, copy=False) is x


def test_a_new_thread_does_not_find_an_ended_threads_pending_node():
    """Thread idents are reused once a thread has ended; the hash-consing key must not be."""
    x = lt.asarray(np.linspace(0.1, 5, 4096, dtype=np.float32))
    with lt.mode("exact"):
        exact = np.array(lt.exp(x) / 3.0)
    box = {}

    def record():
        box["y"] = lt.exp(x) / 3.0
        box["first"] = threading.get_ident()

    def evaluate_fast():
        box["second"] = threading.get_ident()
        with lt.mode("fast"):
            z = lt.exp(x) / 3.0
            box["shared"] = z._node is box["y"]._node
            np.asarray(z)

    reused = False
    for _ in range(50):
        for target in (record, evaluate_fast):
            t = threading.Thread(target=target)
            t.start()
            t.join()
        assert not box["shared"]
        with lt.mode("exact"):
            assert np.asarray(box["y"]).tobytes() == exact.tobytes()
        reused |= box["first"] == box["second"]
        if reused:
            break
    assert reused, "the OS never reused a thread ident: the test did not test anything"


# Pickles made before the engine moved to lazytensor._engine (made with commit 9375a9c,
# protocol 2): a float32 tensor [1.5, -2.0, 3.25] and the CPU device.
_OLD_TENSOR_PICKLE = (
    b'\x80\x02clazytensor._tensor\n_rebuild\nq\x00cnumpy._core.multiarray\n_reconstruct\nq\x01'
    b'cnumpy\nndarray\nq\x02K\x00\x85q\x03c_codecs\nencode\nq\x04X\x01\x00\x00\x00bq\x05X\x06'
    b'\x00\x00\x00latin1q\x06\x86q\x07Rq\x08\x87q\tRq\n(K\x01K\x03\x85q\x0bcnumpy\ndtype\nq\x0c'
    b'X\x02\x00\x00\x00f4q\r\x89\x88\x87q\x0eRq\x0f(K\x03X\x01\x00\x00\x00<q\x10NNNJ\xff\xff\xff'
    b'\xffJ\xff\xff\xff\xffK\x00tq\x11b\x89h\x04X\x0e\x00\x00\x00\x00\x00\xc3\x80?\x00\x00\x00'
    b'\xc3\x80\x00\x00P@q\x12h\x06\x86q\x13Rq\x14tq\x15b\x85q\x16Rq\x17.')
_OLD_DEVICE_PICKLE = b'\x80\x02clazytensor._tensor\nDevice\nq\x00)\x81q\x01.'


def test_pickles_of_the_flat_layout_still_load():
    import pickle

    t = pickle.loads(_OLD_TENSOR_PICKLE)
    assert isinstance(t, lt.Tensor)
    np.testing.assert_array_equal(t.numpy(), np.array([1.5, -2.0, 3.25], np.float32))
    assert pickle.loads(_OLD_DEVICE_PICKLE) == t.device
