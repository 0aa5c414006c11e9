#!/usr/bin/env python3
"""Independent SymPy oracle for spatial bodies placed by expressions of q (a tree).

Usage:  python tree.py IN.json OUT.json

Builds, in SymPy and from the definitions only, the model "chain" of
codegen/tests/placed_spatial.rs: coordinates q = (a, b, c, s), velocities v,
a driven base angle a + spin t (rheonomic), three bodies:

  base:   R1 = Rz(a + spin t),                 r1 = (0, 0, h)
  arm:    R2 = R1 Rot(u, b), u = (1, 2, 2)/3, r2 = r1 + R1 (0, ey, h) + R2 (l/2, 0, 0)
  slider: R3 = R2 Rx(c),                    r3 = r2 + R2 (l/2, 0, 0) + R2 (s, 0, 0) + R3 (0, d, 0)

(Rot(u, b) by Rodrigues' formula), inertia tensors J1 = diag(j1x, j1y, j1z),
J2 = [[j2x, p2, 0], [p2, j2y, 0], [0, 0, j2z]], J3 = diag(j3x, j3y, j3z) about the
centres of mass in the body frames, and

  T = sum m/2 |rdot|^2 + 1/2 w'^T J w',  w' = vee(R^T Rdot)
      (Rdot = sum dR/dq_j v_j + dR/dt, the skew part taken),
  mass = d2T/dv2,
  force = dT/dq - (d2T/dv dq) v - d2T/dv dt + Q_applied   (Lagrange's equations),

with the loads by virtual work: gravity (0, 0, -g) on every body; a world force
(f, -f, 2 f) at the slider point R3 (0, 0, 0.1) from r3; a body-frame torque
(0.3, -0.2, 0.5) on the arm, n = R2 n', Q_j += n . vee(dR2/dq_j R2^T); a TSDA
between the slider point r3 + R3 (0.1, 0, 0) and the world point (0.5, 0.5, 2):
f_s = k (l - l0) + cd ldot pulling them together, Q_j -= f_s dl/dq_j.

Numbers: inputs are taken exactly (binary fractions) into mpmath at 50 digits,
the expressions evaluated there (lambdify with common subexpressions), rounded
once to double. Output: {"points": [{"mass", "force"}, ...]}.
"""

import json
import sys
from fractions import Fraction

import mpmath
import sympy as sp


def skew(e):
    return sp.Matrix([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])


def vee(w):
    return sp.Matrix([w[2, 1] - w[1, 2], w[0, 2] - w[2, 0], w[1, 0] - w[0, 1]]) / 2


def elementary(axis, angle):
    u = sp.zeros(3, 1)
    u[axis] = 1
    return rodrigues(u, angle)


def rodrigues(u, angle):
    c, s = sp.cos(angle), sp.sin(angle)
    return c * sp.eye(3) + s * skew(u) + (1 - c) * u * u.T


def build(params):
    t = sp.Symbol("t")
    q = list(sp.symbols("a b c s"))
    v = list(sp.symbols("a_dot b_dot c_dot s_dot"))
    P = {name: sp.Symbol(name) for name in params}
    a, b, c, s = q
    R = sp.Rational
    u = sp.Matrix([1, 2, 2]) / 3
    R1 = elementary(2, a + P["spin"] * t)
    R2 = R1 * rodrigues(u, b)
    R3 = R2 * elementary(0, c)
    r1 = sp.Matrix([0, 0, P["h"]])
    r2 = r1 + R1 * sp.Matrix([0, P["ey"], P["h"]]) + R2 * sp.Matrix([P["l"] / 2, 0, 0])
    r3 = (r2 + R2 * sp.Matrix([P["l"] / 2, 0, 0]) + R2 * sp.Matrix([s, 0, 0])
          + R3 * sp.Matrix([0, P["d"], 0]))
    J1 = sp.diag(P["j1x"], P["j1y"], P["j1z"])
    J2 = sp.Matrix([[P["j2x"], P["p2"], 0], [P["p2"], P["j2y"], 0], [0, 0, P["j2z"]]])
    J3 = sp.diag(P["j3x"], P["j3y"], P["j3z"])
    vv = sp.Matrix(v)

    def rate(x):
        return x.jacobian(q) * vv + sp.diff(x, t)

    def mat_rate(m):
        return sum((sp.diff(m, q[j]) * v[j] for j in range(4)), sp.diff(m, t))

    T = 0
    for m, R_, r, J in ((P["m1"], R1, r1, J1), (P["m2"], R2, r2, J2), (P["m3"], R3, r3, J3)):
        rd = rate(r)
        w = vee(R_.T * mat_rate(R_))
        T += m / 2 * (rd.T * rd)[0] + (w.T * J * w)[0] / 2
    n = 4
    Q = [0] * n
    for m, r in ((P["m1"], r1), (P["m2"], r2), (P["m3"], r3)):
        for j in range(n):
            Q[j] += -m * P["g"] * sp.diff(r[2], q[j])
    f = P["f"]
    point = r3 + R3 * sp.Matrix([0, 0, R(1, 10)])
    F = sp.Matrix([f, -f, 2 * f])
    for j in range(n):
        Q[j] += (sp.diff(point, q[j]).T * F)[0]
    n_world = R2 * sp.Matrix([R(3, 10), R(-2, 10), R(5, 10)])
    for j in range(n):
        Q[j] += (n_world.T * vee(sp.diff(R2, q[j]) * R2.T))[0]
    end = r3 + R3 * sp.Matrix([R(1, 10), 0, 0])
    dvec = end - sp.Matrix([R(1, 2), R(1, 2), 2])
    ln = sp.sqrt((dvec.T * dvec)[0])
    ldot = (dvec.T * rate(dvec))[0] / ln
    fs = P["k"] * (ln - P["l0"]) + P["cd"] * ldot
    for j in range(n):
        Q[j] += -fs * sp.diff(ln, q[j])
    dT_dv = [sp.diff(T, vi) for vi in v]
    mass = [[sp.diff(dT_dv[i], vj) for vj in v] for i in range(n)]
    force = []
    for i in range(n):
        mixed = sum(sp.diff(dT_dv[i], q[j]) * v[j] for j in range(n))
        force.append(sp.diff(T, q[i]) - mixed - sp.diff(dT_dv[i], t) + Q[i])
    return (t, q, v, P), {"mass": mass, "force": force}


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: tree.py IN.json OUT.json")
    with open(argv[1]) as fh:
        spec = json.load(fh)
    if spec.get("model") != "chain":
        sys.exit("tree.py: error: the only model is `chain`")
    params = spec["params"]
    (t, qs, vs, P), kernels = build(params)
    names = list(kernels)
    flat = [e for name in names for e in sp.Matrix(kernels[name])]
    symbols = [t, *qs, *vs, *(P[name] for name in params)]
    # The expressions are large (10^5 operations, unsimplified); mpmath at 50 digits through
    # lambdify with common subexpressions evaluates them in a fraction of a second each.
    mpmath.mp.dps = 50
    function = sp.lambdify(symbols, flat, modules="mpmath", cse=True)
    out = []
    for point in spec["points"]:
        values = [point["t"], *point["q"], *point["v"], *params.values()]
        exact = [mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator for x in values]
        numbers = [float(x) for x in function(*exact)]
        res, at = {}, 0
        for name in names:
            value = kernels[name]
            if isinstance(value[0], list):
                rows, cols = len(value), len(value[0])
                res[name] = [numbers[at + r * cols:at + (r + 1) * cols] for r in range(rows)]
                at += rows * cols
            else:
                res[name] = numbers[at:at + len(value)]
                at += len(value)
        out.append(res)
    with open(argv[2], "w") as fh:
        json.dump({"points": out}, fh)


if __name__ == "__main__":
    main(sys.argv)
