"""Write the operator table of docs/semantics.md from lazytensor/_engine/ops.py.

    python tools/gen_op_table.py          # rewrite the table in place
    python tools/gen_op_table.py --check  # exit 1 if the docs are out of date

The table sits between the markers ``<!-- ops-table:begin -->`` and ``<!-- ops-table:end -->``.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "semantics.md"
BEGIN, END = "<!-- ops-table:begin -->", "<!-- ops-table:end -->"

_KINDS = {"b": "bool", "i": "int8-int64", "u": "uint8-uint64", "f": "float16/32/64"}
# where each table op is reachable, beyond lt.<name>
def _load_ops():
    spec = importlib.util.spec_from_file_location("_lt_ops_doc", ROOT / "lazytensor" / "_engine" / "ops.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _ulps(v: float) -> str:
    return "correctly rounded" if v == 0.5 else f"<= {v:g} ulp"


def _mode(op) -> str:
    per = ("u normwise (integer exponents: NumPy's products)" if op.name == "pow"
           else "ulp per part")
    cc = (f"complex64 <= {op.cc_ulp[0]:g}, complex128 <= {op.cc_ulp[1]:g} {per}"
          if op.cc_ulp else "")
    if not op.ulp:
        return f"exact; {cc}" if cc else "exact"
    b = dict(op.ulp)
    return (f"exact ({'own math' if op.math else 'own pow'}): float32 {_ulps(b['float32'])}, float64 {_ulps(b['float64'])}; "
            f"fast <= {b['fast']:g} ulp" + (f"; {cc}" if cc else ""))


def table() -> str:
    ops = _load_ops()
    lines = ["| op | call | ONNX | element types | result | mode | rule |",
             "|---|---|---|---|---|---|---|"]
    for op in ops.OPS_LIST:
        call = op.spelling
        types = ", ".join(_KINDS[k] for k in op.kinds if k != "h") + (
            ", complex64/128" if op.cc else ", complex*" if op.cplx else "")
        result = "bool" if op.result == "bool" else "input dtype"
        mode = _mode(op)
        lines.append(f"| {op.name} | `{call}` | {op.onnx} | {types} | {result} | {mode} | "
                     f"{op.doc} |")
    return "\n".join(lines)


def render(text: str) -> str:
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table()}\n{END}{tail}"


def main(argv):
    text = DOC.read_text()
    new = render(text)
    if "--check" in argv:
        if new != text:
            print("docs/semantics.md is out of date: run python tools/gen_op_table.py")
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
