#!/usr/bin/env python3
"""Oracle for the equations of motion of the planar n-link pendulum: M(q) and Q(q, v).

Usage:  python nlink.py IN.json OUT.json

The model is the one of bench_lagrange.py (uniform rods, relative angles, first rod pinned at
the origin, gravity g along -y; parameters m1..mN, l1..lN, g). M and Q come from its
Lagrangian by SymPy's own differentiation, first principles (bench_lagrange's
derive_first_principles: p = dT/dv, M = dp/dv, Q = dT/dq - dV/dq - (dp/dq) v); nothing is
simplified. Every input double is converted to the exact rational it stands for, each entry is
evaluated with evalf(50) and rounded once to the nearest double.

Input:  {"n": N, "params": {"m1": .., "l1": .., "g": ..}, "points": [{"q": [N], "v": [N]}, ...]}
Output: {"points": [{"mass": [[N] x N], "force": [N]}, ...]}
"""

import json
import os
import sys
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import sympy  # noqa: E402

from bench_lagrange import derive_first_principles  # noqa: E402


def exact(x):
    f = Fraction(x)
    return sympy.Rational(f.numerator, f.denominator)


def main(argv):
    if len(argv) != 3:
        print("usage: python nlink.py IN.json OUT.json", file=sys.stderr)
        return 2
    with open(argv[1]) as fh:
        inp = json.load(fh)
    n = int(inp["n"])
    syms, mass, force = derive_first_principles(sympy, n)
    base = {}
    for kind in ("m", "l"):
        for i, s in enumerate(syms[kind]):
            base[s] = exact(inp["params"][f"{kind}{i + 1}"])
    base[syms["g"]] = exact(inp["params"]["g"])
    points = []
    for p in inp["points"]:
        values = dict(base)
        values.update({s: exact(x) for s, x in zip(syms["q"], p["q"])})
        values.update({s: exact(x) for s, x in zip(syms["v"], p["v"])})
        ev = lambda e: float(sympy.sympify(e).xreplace(values).evalf(50))  # noqa: E731
        points.append({"mass": [[ev(e) for e in row] for row in mass], "force": [ev(e) for e in force]})
    with open(argv[2], "w") as fh:
        json.dump({"points": points}, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
