"""What tensors pickled before the engine moved to ``lazytensor._engine`` name: the function
that rebuilds a tensor from its value, and the CPU device."""

from ._engine.tensor import CPU, Device, _rebuild  # noqa: F401  (what old pickles name)
