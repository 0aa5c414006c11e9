#!/usr/bin/env python3
"""Independent SymPy oracle for spatial bodies in Euler parameters.

Usage:  python spatial.py IN.json OUT.json

Builds, in SymPy and from the textbook definitions (Haug, Computer-Aided
Kinematics and Dynamics of Mechanical Systems, ch. 9-11), the model "pair":
two bodies a, b with r = (x, y, z) and p = (e0, e1, e2, e3) each
(q = [r_a, p_a, r_b, p_b], velocities v likewise), and evaluates at every
requested point (t, q, v):

  phi, phi_q = dPhi/dq, gamma = -(Phi_q v)_q v - 2 Phi_qt v - Phi_tt,
  mass = d2T/dv2 and force = dT/dq - (d2T/dv dq) v + Q_applied
  (Lagrange's equations: no explicit quadratic-velocity formula is used).

Definitions (e = (e1, e2, e3), [e x] the cross-product matrix):
  G = [-e, -[e x] + e0 I], E = [-e, [e x] + e0 I]   (3 x 4)
  A = (e0^2 - e.e) I + 2 e e^T + 2 e0 [e x]
  T = sum m/2 |rdot|^2 + 1/2 w'^T J' w' with w' = 2 G pdot
  V = -sum m g.r
A world force F at the body point s' does the virtual work F.(dr + dpi x A s')
with the virtual rotation dpi = 2 E dp (a body-frame torque n': n'.(2 G dp)).

Model "pair" (parameters m1, m2, jx, jy, jz, jxy, k, c, l0, g):
  a: mass m1, J' = diag(jx, jy, jz); b: mass m2, J' = [[jx, jxy, 0], [jxy, jy, 0], [0, 0, jz]]
  rows: a_norm, b_norm (p^T p - 1);
        rev = revolute(a, sa, z, b, sb, z) with sa = (0.3, -0.2, 0.1), sb = (-0.5, 0.1, 0.4):
          P_a - P_b (3 rows), (A_a x).(A_b z), (A_a y).(A_b z);
        link: |P_a - (1, 2, 3)|^2 - 0.7^2;
        spin: (A_a y . A_b x) cos 2t - (A_a x . A_b x) sin 2t
  loads: gravity (0, 0, -g); TSDA between a (0, 0.5, 0) and b (0.2, 0, -0.3):
         l = |d|, d = P_a - P_b, f = k (l - l0) + c ldot pulls the points together;
         world force (1, -2, 0.5) at a (0.1, 0.2, 0.3); body torque (0.2, -0.1, 0.4) on b.

Numbers: inputs become exact rationals; xreplace + evalf(50); rounded once to
double. Output: {"points": [{"phi", "phi_q", "gamma", "mass", "force"}, ...]}.
"""

import json
import sys
from fractions import Fraction

import sympy as sp


def exact(x):
    fr = Fraction(x)
    return sp.Rational(fr.numerator, fr.denominator)


def skew(e):
    return sp.Matrix([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])


def g_matrix(p):
    e0, e = p[0], sp.Matrix(p[1:4])
    return sp.Matrix.hstack(-e, -skew(e) + e0 * sp.eye(3))


def e_matrix(p):
    e0, e = p[0], sp.Matrix(p[1:4])
    return sp.Matrix.hstack(-e, skew(e) + e0 * sp.eye(3))


def rotation(p):
    e0, e = p[0], sp.Matrix(p[1:4])
    return (e0**2 - (e.T * e)[0]) * sp.eye(3) + 2 * e * e.T + 2 * e0 * skew(e)


def build(params):
    t = sp.Symbol("t")
    q = sp.symbols("q0:14")
    v = sp.symbols("v0:14")
    P = {name: sp.Symbol(name) for name in params}
    bodies = []
    for k in range(2):
        r = sp.Matrix(q[7 * k:7 * k + 3])
        p = list(q[7 * k + 3:7 * k + 7])
        rd = sp.Matrix(v[7 * k:7 * k + 3])
        pd = sp.Matrix(v[7 * k + 3:7 * k + 7])
        bodies.append((r, p, rd, pd))
    (ra, pa, rda, pda), (rb, pb, rdb, pdb) = bodies
    Aa, Ab = rotation(pa), rotation(pb)
    x, y, z = sp.Matrix([1, 0, 0]), sp.Matrix([0, 1, 0]), sp.Matrix([0, 0, 1])
    R = sp.Rational
    sa = sp.Matrix([R(3, 10), R(-2, 10), R(1, 10)])
    sb = sp.Matrix([R(-5, 10), R(1, 10), R(4, 10)])
    Pa, Pb = ra + Aa * sa, rb + Ab * sb
    dot = lambda u, w: (u.T * w)[0]
    phi = [
        sum(c**2 for c in pa) - 1,
        sum(c**2 for c in pb) - 1,
        *(Pa - Pb),
        dot(Aa * x, Ab * z),
        dot(Aa * y, Ab * z),
        dot(Pa - sp.Matrix([1, 2, 3]), Pa - sp.Matrix([1, 2, 3])) - R(7, 10) ** 2,
        dot(Aa * y, Ab * x) * sp.cos(2 * t) - dot(Aa * x, Ab * x) * sp.sin(2 * t),
    ]
    Ja = sp.diag(P["jx"], P["jy"], P["jz"])
    Jb = sp.Matrix([[P["jx"], P["jxy"], 0], [P["jxy"], P["jy"], 0], [0, 0, P["jz"]]])
    T = 0
    for (r, p, rd, pd), m, J in ((bodies[0], P["m1"], Ja), (bodies[1], P["m2"], Jb)):
        w = 2 * g_matrix(p) * pd
        T += m / 2 * dot(rd, rd) + dot(w, J * w) / 2
    n = 14
    qs, vs = list(q), list(v)
    Q = [0] * n
    # Gravity.
    Q[2] += -P["m1"] * P["g"]
    Q[9] += -P["m2"] * P["g"]

    def point_force(k, p, s_world, F):
        for c in range(3):
            Q[7 * k + c] += F[c]
        n_world = s_world.cross(F)
        qp = 2 * e_matrix(p).T * n_world
        for c in range(4):
            Q[7 * k + 3 + c] += qp[c]

    # TSDA.
    ta, tb = sp.Matrix([0, R(1, 2), 0]), sp.Matrix([R(2, 10), 0, R(-3, 10)])
    d = (ra + Aa * ta) - (rb + Ab * tb)
    ddot = d.jacobian(qs) * sp.Matrix(vs)
    l = sp.sqrt(dot(d, d))
    ldot = dot(d, ddot) / l
    fs = P["k"] * (l - P["l0"]) + P["c"] * ldot
    pull = fs / l * d
    point_force(0, pa, Aa * ta, -pull)
    point_force(1, pb, Ab * tb, pull)
    # World force at a point of a.
    point_force(0, pa, Aa * sp.Matrix([R(1, 10), R(2, 10), R(3, 10)]), sp.Matrix([1, -2, R(1, 2)]))
    # Body-frame torque on b.
    qp = 2 * g_matrix(pb).T * sp.Matrix([R(2, 10), R(-1, 10), R(4, 10)])
    for c in range(4):
        Q[10 + c] += qp[c]
    # Lagrange's equations.
    dT_dv = [sp.diff(T, vi) for vi in vs]
    mass = [[sp.diff(dT_dv[i], vj) for vj in vs] for i in range(n)]
    force = []
    for i in range(n):
        mixed = sum(sp.diff(dT_dv[i], qs[j]) * vs[j] for j in range(n))
        force.append(sp.diff(T, qs[i]) - mixed + Q[i])
    # Constraint kernels.
    phi_q = [[sp.diff(f, qj) for qj in qs] for f in phi]
    gamma = []
    for row in range(len(phi)):
        qv = sum(phi_q[row][j] * vs[j] for j in range(n))
        Lv = sum(sp.diff(qv, qs[j]) * vs[j] for j in range(n))
        qtv = sum(sp.diff(phi_q[row][j], t) * vs[j] for j in range(n))
        gamma.append(-Lv - 2 * qtv - sp.diff(phi[row], t, 2))
    return (t, qs, vs, P), {"phi": phi, "phi_q": phi_q, "gamma": gamma, "mass": mass, "force": force}


def evaluate(e, subs):
    val = sp.sympify(e).xreplace(subs).evalf(50)
    return float(val)


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: spatial.py IN.json OUT.json")
    with open(argv[1]) as f:
        spec = json.load(f)
    if spec.get("model") != "pair":
        sys.exit("spatial.py: error: the only model is `pair`")
    params = spec["params"]
    (t, qs, vs, P), kernels = build(params)
    out = []
    for point in spec["points"]:
        subs = {t: exact(point["t"])}
        subs.update({qs[i]: exact(x) for i, x in enumerate(point["q"])})
        subs.update({vs[i]: exact(x) for i, x in enumerate(point["v"])})
        subs.update({P[name]: exact(x) for name, x in params.items()})
        res = {}
        for name, value in kernels.items():
            if isinstance(value[0], list):
                res[name] = [[evaluate(e, subs) for e in row] for row in value]
            else:
                res[name] = [evaluate(e, subs) for e in value]
        out.append(res)
    with open(argv[2], "w") as f:
        json.dump({"points": out}, f)


if __name__ == "__main__":
    main(sys.argv)
