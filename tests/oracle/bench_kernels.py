#!/usr/bin/env python3
"""Benchmark peer for the Rust kernel generator: SymPy / SymEngine on the closed n-link chain.

Usage:
  python bench_kernels.py --n 5 10 20 40 60 --backend sympy symengine --timeout 120 --repeat 3
  (options: --no-skip   also run larger n after a timeout at smaller n for that backend)

Model: the "chain" model of kernels.py (same derivation code, imported from it):
closed planar N-link chain, relative angles q = (q1..qN), velocities v = (v1..vN),
fully symbolic parameters l1..lN, X, Y and time t,
  a_i = q1 + ... + q_i,   Phi = [sum_i l_i cos(a_i) - X, sum_i l_i sin(a_i) - Y].

What is timed (time.perf_counter inside a fresh worker subprocess, so interpreter
start-up and the `import sympy` / `import symengine` are excluded):
  1. create the symbols and build Phi (2 entries);
  2. Phi_q: 2 x N element-wise diff;  Phi_t (2 diffs w.r.t. t, zero here);
  3. w = Phi_q v;  L = dw/dq (2 x N element-wise diff);
  4. gamma = -(L v) - 2 (d/dt Phi_q) v - Phi_tt  (literal formula, 2 entries);
  5. one joint cse call over the 2 + 2N + 2 + 2N expressions [Phi, Phi_q (row-major),
     gamma, L (row-major)]: sympy.cse(list) or symengine.cse(list), default options.
No simplification or expansion is done anywhere.  Every repeat runs in its own
fresh subprocess (SymPy caches results globally, so repeating inside one process
would time cache hits); "seconds" is the minimum over the successful repeats.
The op counting below is done after the timer stops.

Op count (the Rust side counts the same way), a recursive walk over each
expression tree (no sharing inside one tree: a subtree that occurs twice is
counted twice; sharing exists only through the cse replacement symbols):
  Add with k args -> k-1          (subtraction is Add(a, Mul(-1, b)): the Mul counts 1)
  Mul with k args -> k-1          (a numeric coefficient is an argument: 2*x*y -> 2)
  Pow             -> 1            (any exponent: x**2, x**-1 (division), x**(1/2) (sqrt))
  function application (sin, cos, tan, exp, log, atan2, Abs, Max, Min, Piecewise, ...) -> 1
  symbols and numbers -> 0
  the arguments of every node are walked in turn.
ops_after_cse = sum over every replacement expression (the right-hand side of
each (symbol, expr) pair of the joint cse) + sum over every reduced output
expression.  ops_per_kernel[k] = the same count for a separate cse call on the
entries of kernel k alone (phi: 2 entries, phi_q: 2N, gamma: 2, L: 2N); it is
computed in a second, untimed worker subprocess (same timeout).

Output: one JSON object per line on stdout, per (backend, n), in command-line order:
  {"backend": "sympy" | "symengine", "n": N, "seconds": float | null,
   "ops_after_cse": int | null,
   "ops_per_kernel": {"phi": int, "phi_q": int, "gamma": int, "L": int} | null,
   "status": "ok" | "timeout" | "error"}
  status "timeout": every repeat exceeded --timeout seconds of subprocess wall time
  (seconds and op counts are then null); a backend whose smaller n timed out is
  not run for larger n and is reported as "timeout" directly (unless --no-skip).
  status "error": the worker crashed (its stderr is echoed to our stderr).
  ops_per_kernel is null if that (untimed) per-kernel run timed out.
Progress and diagnostics go to stderr.
"""

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ("phi", "phi_q", "gamma", "L")


# --------------------------------------------------------------------------
# Op counting
# --------------------------------------------------------------------------
def make_counter(backend):
    """Return count(expr) implementing the op-count definition in the docstring."""
    if backend == "sympy":
        import sympy

        def classify(e):
            if e.is_Add or e.is_Mul:
                return len(e.args) - 1
            if e.is_Pow:
                return 1
            if isinstance(e, (sympy.Function, sympy.Piecewise)):
                return 1
            if e.is_Atom:
                return 0
            if isinstance(e, (sympy.ExprCondPair, sympy.core.relational.Relational,
                              sympy.logic.boolalg.Boolean)):
                return 0  # only reachable inside Piecewise; walk their args
            raise TypeError(f"op count: unsupported sympy node {type(e).__name__}: {e}")
    elif backend == "symengine":
        import symengine as se

        def classify(e):
            if isinstance(e, (se.Add, se.Mul)):
                return len(e.args) - 1
            if isinstance(e, se.Pow):
                return 1
            if isinstance(e, se.Function):
                return 1
            if isinstance(e, (se.Symbol, se.Number)) or not e.args:
                return 0
            raise TypeError(f"op count: unsupported symengine node {type(e).__name__}: {e}")
    else:
        raise ValueError(backend)

    def count(expr):
        total = 0
        stack = [expr]
        while stack:
            e = stack.pop()
            total += classify(e)
            stack.extend(e.args)
        return total

    return count


def count_cse(backend, cse_result):
    count = make_counter(backend)
    replacements, reduced = cse_result
    return sum(count(rhs) for _, rhs in replacements) + sum(count(e) for e in reduced)


# --------------------------------------------------------------------------
# Worker (runs in a subprocess)
# --------------------------------------------------------------------------
def worker(backend, n, mode):
    sys.path.insert(0, HERE)
    import kernels  # noqa: E402

    B = kernels.Backend(backend)  # imports the backend library (not timed)
    cse = B.lib.cse
    flat = lambda rows: [e for row in rows for e in row]  # noqa: E731

    if mode == "joint":
        t0 = time.perf_counter()
        t, q, _params, phi = kernels.build_model(B, "chain", n)
        _v, K = kernels.derive(B, t, q, phi)
        exprs = list(K["phi"]) + flat(K["phi_q"]) + list(K["gamma"]) + flat(K["L"])
        res = cse(exprs)
        seconds = time.perf_counter() - t0
        ops = count_cse(backend, res)
        return {"seconds": seconds, "ops_after_cse": ops, "n_exprs": len(exprs)}
    if mode == "kernels":
        t, q, _params, phi = kernels.build_model(B, "chain", n)
        _v, K = kernels.derive(B, t, q, phi)
        per = {}
        for k in KERNELS:
            entries = K[k]
            if entries and isinstance(entries[0], list):
                entries = flat(entries)
            per[k] = count_cse(backend, cse(list(entries)))
        return {"ops_per_kernel": per}
    raise ValueError(mode)


def run_worker(backend, n, mode, timeout):
    """Return (status, payload-or-None, stderr)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", backend, str(n), mode]
    try:
        cp = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", None, ""
    if cp.returncode != 0:
        return "error", None, cp.stderr
    return "ok", json.loads(cp.stdout.strip().splitlines()[-1]), cp.stderr


# --------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------
def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "--worker":
        backend, n, mode = sys.argv[2], int(sys.argv[3]), sys.argv[4]
        print(json.dumps(worker(backend, n, mode)))
        return 0

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[5, 10, 20, 40, 60])
    ap.add_argument("--backend", nargs="+", choices=["sympy", "symengine"], default=["sympy", "symengine"])
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per worker subprocess")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-skip", action="store_true", help="run larger n even after a timeout")
    args = ap.parse_args()

    for backend in args.backend:
        timed_out_at = None
        for n in args.n:
            rec = {"backend": backend, "n": n, "seconds": None, "ops_after_cse": None,
                   "ops_per_kernel": None, "status": "timeout"}
            if timed_out_at is not None and n > timed_out_at and not args.no_skip:
                print(f"[{backend} n={n}] skipped: n={timed_out_at} timed out", file=sys.stderr)
                print(json.dumps(rec), flush=True)
                continue
            times, ops, statuses = [], None, []
            for r in range(args.repeat):
                status, payload, err = run_worker(backend, n, "joint", args.timeout)
                statuses.append(status)
                if status == "ok":
                    times.append(payload["seconds"])
                    if ops is not None and ops != payload["ops_after_cse"]:
                        print(f"[{backend} n={n}] warning: op count differs between repeats "
                              f"({ops} vs {payload['ops_after_cse']})", file=sys.stderr)
                    ops = payload["ops_after_cse"]
                    print(f"[{backend} n={n}] repeat {r}: {payload['seconds']:.4f} s, "
                          f"ops_after_cse={ops}", file=sys.stderr)
                elif status == "error":
                    print(f"[{backend} n={n}] worker error:\n{err}", file=sys.stderr)
                    break
                else:
                    print(f"[{backend} n={n}] repeat {r}: timeout (> {args.timeout} s)", file=sys.stderr)
                    if not times:
                        break  # no point repeating a run that cannot finish
            if times:
                rec.update(status="ok", seconds=min(times), ops_after_cse=ops)
                status, payload, err = run_worker(backend, n, "kernels", args.timeout)
                if status == "ok":
                    rec["ops_per_kernel"] = payload["ops_per_kernel"]
                else:
                    print(f"[{backend} n={n}] per-kernel cse: {status} {err}", file=sys.stderr)
            elif "error" in statuses:
                rec["status"] = "error"
            else:
                timed_out_at = n
            print(json.dumps(rec), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
