"""The Array API ``fft`` extension (filled in by the Array API work)."""

from __future__ import annotations

__all__ = []
