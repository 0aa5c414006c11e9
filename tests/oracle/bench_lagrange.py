#!/usr/bin/env python3
"""Benchmark peer: equations of motion of the planar n-link pendulum from a Lagrangian.

Usage:
  python bench_lagrange.py --n 5 10 20 40 60 --backend sympy symengine --timeout 300
  (options: --repeat R (default 1, best of R fresh subprocesses);
            --backend may also name "sympy_mechanics";
            --no-skip  also run larger n after a timeout at smaller n)

Model: N uniform rods, rod i of mass m_i and length l_i, relative angles
q = (q1..qN), velocities v = (v1..vN), first rod pinned at the origin, gravity
g along -y.  Same angle convention as the "chain" model of kernels.py:
  a_i = q1 + ... + q_i            (absolute angle of rod i, from the +x axis)
  e_i = (cos a_i, sin a_i)
  c_i = sum_{j<i} l_j e_j + (l_i/2) e_i          (centre of mass of rod i)
  T   = sum_i [ 1/2 m_i |c_i'|^2 + 1/2 (m_i l_i^2 / 12) a_i'^2 ]
  V   = sum_i m_i g (c_i)_y
Symbolic parameters m1..mN, l1..lN, g.  Equations of motion M(q) v' = Q(q, v).

What is timed (time.perf_counter inside a fresh worker subprocess per run, so
interpreter start-up and library imports are excluded; no cse, no simplify,
no expand anywhere; M is the full N x N matrix, symmetry is not exploited):

  backend "sympy" and "symengine" (identical first-principles code, the
  backend's own diff):
    1. symbols; a_i, c_i as expressions in q;
    2. c_i' = sum_k (d c_i / d q_k) v_k  and  a_i' = sum_k (d a_i / d q_k) v_k;
    3. T and V as above;
    4. p_j = dT/dv_j (N diffs);
    5. M[j][k] = d p_j / d v_k  (N^2 diffs);
    6. Q[j] = dT/dq_j - dV/dq_j - sum_k (d p_j / d q_k) v_k  (N + N + N^2 diffs).
  backend "sympy_mechanics":
    q = dynamicsymbols, same c_i and T, V written with q(t) and q'(t)
    (c_i' by sympy diff w.r.t. t), then
    LagrangesMethod(T - V, q).form_lagranges_equations(), and reading
    .mass_matrix and .forcing (M q'' = forcing).

Output: one JSON object per line on stdout, per (backend, n):
  {"backend": str, "n": N, "seconds": float | null, "status": "ok" | "timeout" | "error"}
  "seconds" is the best (minimum) over the successful repeats, null if none finished.
  A backend whose smaller n timed out is reported "timeout" for larger n without
  running them (unless --no-skip).  Progress and diagnostics go to stderr.
"""

import argparse
import json
import os
import subprocess
import sys
import time

BACKENDS = ("sympy", "symengine", "sympy_mechanics")


def derive_first_principles(lib, n):
    """Return (symbols dict, M (list of rows), Q (list)) using lib = sympy or symengine."""
    q = [lib.Symbol(f"q{i}") for i in range(1, n + 1)]
    v = [lib.Symbol(f"v{i}") for i in range(1, n + 1)]
    m = [lib.Symbol(f"m{i}") for i in range(1, n + 1)]
    ls = [lib.Symbol(f"l{i}") for i in range(1, n + 1)]
    g = lib.Symbol("g")
    zero = lib.Integer(0)
    half = lib.Rational(1, 2)

    a = []
    acc = zero
    for i in range(n):
        acc = acc + q[i]
        a.append(acc)
    cx, cy = [], []
    jx, jy = zero, zero  # joint i-1 position
    for i in range(n):
        cx.append(jx + half * ls[i] * lib.cos(a[i]))
        cy.append(jy + half * ls[i] * lib.sin(a[i]))
        jx = jx + ls[i] * lib.cos(a[i])
        jy = jy + ls[i] * lib.sin(a[i])

    def rate(e):
        s = zero
        for k in range(n):
            s = s + lib.diff(e, q[k]) * v[k]
        return s

    T = zero
    V = zero
    for i in range(n):
        vx, vy, w = rate(cx[i]), rate(cy[i]), rate(a[i])
        T = T + half * m[i] * (vx**2 + vy**2) + half * (m[i] * ls[i] ** 2 / 12) * w**2
        V = V + m[i] * g * cy[i]

    p = [lib.diff(T, v[j]) for j in range(n)]
    M = [[lib.diff(p[j], v[k]) for k in range(n)] for j in range(n)]
    Q = []
    for j in range(n):
        s = zero
        for k in range(n):
            s = s + lib.diff(p[j], q[k]) * v[k]
        Q.append(lib.diff(T, q[j]) - lib.diff(V, q[j]) - s)
    syms = {"q": q, "v": v, "m": m, "l": ls, "g": g}
    return syms, M, Q


def derive_mechanics(n):
    """LagrangesMethod route.  Return (symbols dict, M, forcing) as sympy matrices."""
    import sympy
    from sympy.physics.mechanics import LagrangesMethod, dynamicsymbols

    t = dynamicsymbols._t
    q = list(dynamicsymbols(f"q1:{n + 1}")) if n > 1 else [dynamicsymbols("q1")]
    m = list(sympy.symbols(f"m1:{n + 1}"))
    ls = list(sympy.symbols(f"l1:{n + 1}"))
    g = sympy.Symbol("g")
    a = []
    acc = sympy.Integer(0)
    for i in range(n):
        acc = acc + q[i]
        a.append(acc)
    T = sympy.Integer(0)
    V = sympy.Integer(0)
    jx, jy = sympy.Integer(0), sympy.Integer(0)
    for i in range(n):
        cx = jx + ls[i] / 2 * sympy.cos(a[i])
        cy = jy + ls[i] / 2 * sympy.sin(a[i])
        jx = jx + ls[i] * sympy.cos(a[i])
        jy = jy + ls[i] * sympy.sin(a[i])
        T = T + m[i] / 2 * (cx.diff(t) ** 2 + cy.diff(t) ** 2) + m[i] * ls[i] ** 2 / 24 * a[i].diff(t) ** 2
        V = V + m[i] * g * cy
    lm = LagrangesMethod(T - V, q)
    lm.form_lagranges_equations()
    M = lm.mass_matrix
    F = lm.forcing
    return {"q": q, "m": m, "l": ls, "g": g, "t": t}, M, F


def worker(backend, n):
    if backend == "sympy":
        import sympy as lib
    elif backend == "symengine":
        import symengine as lib
    elif backend == "sympy_mechanics":
        import sympy  # noqa: F401
        import sympy.physics.mechanics  # noqa: F401
    else:
        raise ValueError(backend)
    t0 = time.perf_counter()
    if backend == "sympy_mechanics":
        derive_mechanics(n)
    else:
        derive_first_principles(lib, n)
    return {"seconds": time.perf_counter() - t0}


def run_worker(backend, n, timeout):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", backend, str(n)]
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", None, ""
    if cp.returncode != 0:
        return "error", None, cp.stderr
    return "ok", json.loads(cp.stdout.strip().splitlines()[-1]), cp.stderr


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--worker":
        print(json.dumps(worker(sys.argv[2], int(sys.argv[3]))))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[5, 10, 20, 40, 60])
    ap.add_argument("--backend", nargs="+", choices=BACKENDS, default=["sympy", "symengine"])
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per worker subprocess")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-skip", action="store_true")
    args = ap.parse_args()
    for backend in args.backend:
        timed_out_at = None
        for n in args.n:
            rec = {"backend": backend, "n": n, "seconds": None, "status": "timeout"}
            if timed_out_at is not None and n > timed_out_at and not args.no_skip:
                print(f"[{backend} n={n}] skipped: n={timed_out_at} timed out", file=sys.stderr)
                print(json.dumps(rec), flush=True)
                continue
            times, statuses = [], []
            for r in range(args.repeat):
                status, payload, err = run_worker(backend, n, args.timeout)
                statuses.append(status)
                if status == "ok":
                    times.append(payload["seconds"])
                    print(f"[{backend} n={n}] repeat {r}: {payload['seconds']:.4f} s", file=sys.stderr)
                elif status == "error":
                    print(f"[{backend} n={n}] worker error:\n{err}", file=sys.stderr)
                    break
                else:
                    print(f"[{backend} n={n}] repeat {r}: timeout (> {args.timeout} s)", file=sys.stderr)
                    if not times:
                        break
            if times:
                rec.update(status="ok", seconds=min(times))
            elif "error" in statuses:
                rec["status"] = "error"
            else:
                timed_out_at = n
            print(json.dumps(rec), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
