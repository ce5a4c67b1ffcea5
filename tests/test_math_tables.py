"""The generated math tables that exist in two layouts hold the same values in both.

The float32 Gelu's and log's first passes read their coefficients by column on AVX-512 and
the baseline, by row on AVX2 (ltm_vrows16, kernels_c/math/lt_exp.h): a row table that
drifted from its column table would give different bits on different paths.
"""

import pathlib
import re

import pytest

MATH = pathlib.Path(__file__).resolve().parents[1] / "kernels_c" / "math"


def c_table(header, name):
    """The values of ``static const [_Alignas(n)] double name[len] = {...};`` in a header,
    and its alignment (None without one)."""
    text = (MATH / header).read_text()
    m = re.search(r"static const (?:_Alignas\((\d+)\) )?double " + re.escape(name)
                  + r"\[(\d+)\] = \{(.*?)\};", text, re.S)
    assert m, f"{name} not found in {header}"
    vals = [float.fromhex(v) for v in m.group(3).replace("\n", " ").split(",") if v.strip()]
    assert len(vals) == int(m.group(2))
    return vals, (int(m.group(1)) if m.group(1) else None)


@pytest.mark.parametrize("header,cols_name,rows_name,ncols,stride", [
    ("lt_erf_data.h", "lt_tab_gelu32_r", "lt_tab_gelu32_rows", 11, 12),
    ("lt_log_data.h", "lt_tab_log16", "lt_tab_log16_rows", 3, 4),
])
def test_row_table_is_the_column_table_transposed(header, cols_name, rows_name, ncols, stride):
    cols, _ = c_table(header, cols_name)
    rows, align = c_table(header, rows_name)
    assert len(cols) == 16 * ncols and len(rows) == 16 * stride
    for i in range(16):
        row = rows[i * stride:(i + 1) * stride]
        assert row[:ncols] == [cols[16 * c + i] for c in range(ncols)], f"{rows_name} row {i}"
        assert row[ncols:] == [0.0] * (stride - ncols)
    # a row slice of 4 doubles is one aligned load: rows start on 32 bytes
    assert align is not None and align % 32 == 0 and (stride * 8) % 32 == 0
