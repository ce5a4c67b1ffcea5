"""The C functions of the fused bodies (lazytensor/_engine/ops.py, FUSED_BODIES), for
build_kernels.py.

A body's nodes are computed as the ops one instruction at a time compute them: a table op by
its C body, rounded to the dtype and (exact mode) made a canonical NaN as its own function
does; divide_by_scalar as lt_div_scalar (fast mode: the product by the divisor's reciprocal
where lt_div_scalar_multiplies says so); a math op by the function its own loop calls.  So the
bits are those of the chain of instructions.  Nodes computed element by element share one loop
over the chunk; a math op whose loop in that mode is a whole-chunk function (a first pass and
its redo) runs between such loops, on the values of its operand stored for it.
"""

from __future__ import annotations

import re


def fused_functions(ops, row, c_expr, math_defined, op_params):
    """The C text of every (fused body, dtype) function.  ``row``: ops.DTYPES by name;
    ``c_expr``, ``math_defined``: build_kernels' helpers; ``op_params``: lt_opfn's parameter
    list."""
    out = []
    for body in ops.FUSED_BODIES:
        for dt in ops.FUSED_DTYPES:
            out.append(_function(ops, body, dt, row, c_expr, math_defined, op_params))
    return out


def _nodes(tree, nodes):
    """Post-order list of (op, children) where a child is an operand name or a node index."""
    if isinstance(tree, str):
        return tree
    kids = [_nodes(child, nodes) for child in tree[1:]]
    nodes.append((tree[0], kids))
    return len(nodes) - 1


def _mode_code(ops, nodes, dt, exact, mul, c_expr, math_defined):
    """The statements computing the body over the chunk in one mode; ``mul`` (fast mode with
    a divide_by_scalar node) picks the product by the reciprocal."""
    width = {"float32": "f32", "float64": "f64"}[dt]
    canon = "lt_canonf" if dt == "float32" else "lt_canon"
    root = len(nodes) - 1

    def math_fn(op):
        name = f"ltm_{ops.OPS[op].math}_{width}"
        return name if exact else name + "_fast"

    def whole_chunk(k):
        op = nodes[k][0]
        return op in ops.OPS and ops.OPS[op].math and math_defined(math_fn(op) + "_chunk")

    # stage of a node: the loop computing it (a whole-chunk node: the loop after which it
    # runs; its readers are in later loops)
    stage = {}
    for k, (op, kids) in enumerate(nodes):
        s = max([stage[c] + (1 if whole_chunk(c) else 0) for c in kids if isinstance(c, int)],
                default=0)
        stage[k] = s
    readers = {k: [j for j, (_, kids) in enumerate(nodes) if k in kids] for k in range(len(nodes))}
    # values kept in an array over the chunk: read by a whole-chunk node or a later loop
    stored = {k for k in range(len(nodes)) if k != root and not whole_chunk(k) and any(
        whole_chunk(j) or stage[j] != stage[k] for j in readers[k])}

    def ref(c, k):
        """How node k reads child c in its loop."""
        if isinstance(c, str):
            return f"p{c}[i]"
        return f"t{c}[i]" if whole_chunk(c) or c in stored and stage[c] != stage[k] else f"v{c}"

    def array(c):
        return f"p{c}" if isinstance(c, str) else ("o" if c == root else f"t{c}")

    lines = [f"T t{k}[LT_CHUNK];" for k in range(len(nodes))
             if k != root and (k in stored or whole_chunk(k))]
    for s in range(max(stage.values()) + 1):
        body = []
        for k, (op, kids) in enumerate(nodes):
            if whole_chunk(k) or stage[k] != s:
                continue
            args = [ref(c, k) for c in kids]
            if op == "divide_by_scalar":
                body.append(f"T v{k} = {args[0]} {'* rc' if mul else '/ dc'};")
                can = exact
            elif ops.OPS[op].math:
                body.append(f"T v{k} = {math_fn(op)}({args[0]});")
                can = False                       # the function's own canonical NaN
            else:
                spec = ops.OPS[op]
                if spec.f_chunk:
                    raise RuntimeError(f"fused body: {op} works a chunk at a time")
                decl = ", ".join(f"{v} = {a}" for v, a in zip("abc", args))
                c_body = c_expr(spec.c_body("f"), dt)
                body.append(f"T v{k}; {{ const T {decl}; v{k} = (T)({c_body}); }}")
                can = exact and spec.result == "same"
            if can:
                body.append(f"v{k} = {canon}(v{k});")
            if k == root:
                body.append(f"o[i] = v{k};")
            elif k in stored:
                body.append(f"t{k}[i] = v{k};")
        if body:
            lines.append("for (int64_t i = 0; i < n; i++) { " + " ".join(body) + " }")
        for k, (op, kids) in enumerate(nodes):       # after the loop making their operands
            if whole_chunk(k) and stage[k] == s:
                lines.append(f"{math_fn(op)}_chunk(n, {array(k)}, {array(kids[0])});")
    return "\n    ".join(lines)


# A float C body that is plain arithmetic on its operands ("a * b", "-a"): the same
# operations on GCC vectors of float lanes as on one float.
_ARITHMETIC = re.compile(r"-?a( [-+*/] b)?")


def _vector_code(ops, nodes, names, mul):
    """Fast mode, float32, on the paths where each math op of the body has a vector form (the
    macro LTM_<MATH>_F32_FAST_VEC, defined by its header there, e.g. lt_erf32_fma.h): the whole
    body in one loop over vectors of float lanes, the math op's vector form inline (the
    function its chunk form calls on each vector), the arithmetic as the same IEEE operations
    per lane; the tail through zero-padded vectors.  None where some op has no such form."""
    guards, lines = [], []
    for k, (op, kids) in enumerate(nodes):
        args = [f"v_{c}" if isinstance(c, str) else f"v{c}" for c in kids]
        if op == "divide_by_scalar":
            expr = f"{args[0]} * rc" if mul else f"{args[0]} / dc"
        elif ops.OPS[op].math:
            macro = f"LTM_{ops.OPS[op].math.upper()}_F32_FAST_VEC"
            guards.append(macro)
            expr = f"{macro}({args[0]})"
        elif _ARITHMETIC.fullmatch(ops.OPS[op].c_body("f")):
            decl = ", ".join(f"{v} = {a}" for v, a in zip("ab", args))
            lines.append(f"ltm_tvf v{k}; {{ const ltm_tvf {decl}; "
                         f"v{k} = {ops.OPS[op].c_body('f')}; }}")
            continue
        else:
            return None
        lines.append(f"ltm_tvf v{k} = {expr};")
    if not guards:
        return None
    load = " ".join(f"memcpy(&v_{n}, p{n} + i, sizeof v_{n});" for n in names)
    pad = " ".join(f"memcpy(t, p{n} + i, (size_t)m * sizeof(float)); memcpy(&v_{n}, t, sizeof t);"
                   for n in names)
    decl = "ltm_tvf " + ", ".join(f"v_{n}" for n in names) + ";"
    body = " ".join(lines)
    root = f"v{len(nodes) - 1}"
    return (f"#if {' && '.join(f'defined({g})' for g in guards)}\n"
            f"    enum {{ W = 2 * LTM_GW }};\n"
            f"    int64_t i = 0;\n"
            f"    for (; i + W <= n; i += W) {{ {decl} {load} {body}\n"
            f"      memcpy(o + i, &{root}, sizeof {root}); }}\n"
            f"    if (i < n) {{ const int64_t m = n - i; float t[W] = {{ 0 }}; {decl} {pad}\n"
            f"      {body} memcpy(t, &{root}, sizeof t);\n"
            f"      memcpy(o + i, t, (size_t)m * sizeof(float)); }}\n"
            f"#else\n")


def _function(ops, body, dt, row, c_expr, math_defined, op_params):
    ctype, utype = row[dt][1], row[dt][2]
    nodes = []
    _nodes(body.tree, nodes)
    leaves = {c for _, kids in nodes for c in kids if isinstance(c, str)}
    names = [n for n in ops.FUSED_OPERANDS if n in leaves]     # bodies.py's operand order
    ptrs = " ".join(f"const T *p{n} = (const T *){v}_;" for n, v in zip(names, "abcd"))
    divisors = [kids[1] for op, kids in nodes if op == "divide_by_scalar"]
    if len(divisors) > 1 or divisors and not isinstance(divisors[0], str):
        raise RuntimeError(f"fused body {body.name}: at most one divide_by_scalar, by an operand")
    args = (ops, nodes, dt)
    exact_code = _mode_code(*args, True, False, c_expr, math_defined)

    def fast(mul):
        code = _mode_code(*args, False, mul, c_expr, math_defined)
        vector = _vector_code(ops, nodes, names, mul) if dt == "float32" else None
        return f"{{\n{vector}    {code}\n#endif\n    }}" if vector else code

    if divisors:
        sfx = "f" if dt == "float32" else ""
        fast_code = (f"const T dc = p{divisors[0]}[0]; T rc = 0;\n    "
                     f"if (lt_div_scalar{sfx}_multiplies(dc, &rc)) {{\n    " + fast(True)
                     + "\n    } else {\n    " + fast(False) + "\n    }")
        exact_code = f"const T dc = p{divisors[0]}[0];\n    " + exact_code
    else:
        fast_code = fast(False)
    return (f"/* {body.doc}: {body.expr} */\n"
            f"static void {ops.entry_name('fused_' + body.name, dt)}({op_params})\n"
            f"{{\n    typedef {ctype} T; typedef {utype} UT; (void)sizeof(UT);\n"
            f"    T *restrict o = (T *)o_; {ptrs}\n"
            f"    (void)p; /* n <= LT_CHUNK: one chunk of a program */\n"
            f"    if (exact) {{\n    {exact_code}\n    }} else {{\n    {fast_code}\n    }}\n}}\n")
