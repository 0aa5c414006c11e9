#!/usr/bin/env python3
"""Independent high-precision oracle for the constraint kernels of three models.

Usage:  python kernels.py IN.json OUT.json

For a model with holonomic constraints Phi(t, q) (m rows, n coordinates) this
script builds Phi symbolically with the chosen backend (SymPy or SymEngine),
differentiates it symbolically with that same backend and evaluates, at every
requested point (t, q, v):

  phi    = Phi(t, q)                                   length m
  phi_q  = dPhi/dq                                     m rows x n
  phi_t  = dPhi/dt                                     length m
  L      = d(Phi_q v)/dq                               m rows x n
  gamma  = -(Phi_q v)_q v - 2 Phi_qt v - Phi_tt        length m

With "lambda" (length m + k) and "w" (length n) in a point, the tangent kernels
are evaluated too, from the model's M (identity for the constraint-only models),
Q (zero there) and nonholonomic rows e = A v + b (none there):

  force_q = dQ/dq, force_v = dQ/dv, mass_w_q = d(M w)/dq,
  phi_q_t_lambda_q = d(Phi_q^T lambda[:m])/dq, nh_matrix_t_lambda_q =
  d(A^T lambda[m:])/dq with A = de/dv, phi_qt = d(Phi_t)/dq, phi_tt = d2Phi/dt2

gamma is computed literally from that formula: L (the Jacobian of the
symbolic vector Phi_q v with respect to q) times v, plus 2 * (d/dt Phi_q) v,
plus Phi_tt, all negated.  Jacobians are plain element-wise diff() calls
(identical code for both backends); nothing is simplified.

Numerical evaluation (no float arithmetic on the way):
  * every input number (t, q, v, parameters) is converted to the exact rational
    equal to the IEEE double read from JSON;
  * sympy:     expr.xreplace(exact values).evalf(50)   (adaptive mpmath, 50 digits)
  * symengine: expr.subs(exact values).evalf(200 bits) (MPFR, about 60 digits)
  * the result is rounded once to the nearest double and written with repr()
    (Python's json writes floats with repr, which round-trips exactly).
So the oracle's own error is the final rounding (<= 0.5 ulp) except where
the exact value cancels to far below the size of its terms.

Input JSON
----------
  {"model": "chain" | "andrews" | "rheonomic",
   "backend": "sympy" | "symengine",            (default "sympy")
   "n_links": N,                                 (chain only, integer >= 1)
   "params": {"name": value, ...},              (numbers; extra names ignored
                                                 with a warning on stderr)
   "points": [{"t": float, "q": [n floats], "v": [n floats]}, ...]}

Output JSON
-----------
  {"model": ..., "backend": ...,
   "points": [{"phi": [m], "phi_q": [[n] x m], "phi_t": [m],
               "gamma": [m], "L": [[n] x m]}, ...]}      (same order as input)

Models (parameter names are exact)
----------------------------------
  chain (m = 2, n = N): closed planar N-link chain, relative angles
      q = (theta1..thetaN), a_i = theta1 + ... + theta_i, parameters l1..lN, X, Y:
      Phi = [sum_i l_i cos(a_i) - X,  sum_i l_i sin(a_i) - Y]
  andrews (m = 6, n = 7): Andrews squeezing mechanism (Hairer-Wanner II VII.7),
      q = (beta, Theta, gamma, Phi, delta, Omega, epsilon),
      parameters rr, d, ss, xb, yb, e, zt, xa, ya, zf, u;
      beth = beta+Theta, phde = Phi+delta, omep = Omega+epsilon:
      g1 = rr cos(beta) - d cos(beth) - ss sin(gamma) - xb
      g2 = rr sin(beta) - d sin(beth) + ss cos(gamma) - yb
      g3 = rr cos(beta) - d cos(beth) - e sin(phde) - zt cos(delta) - xa
      g4 = rr sin(beta) - d sin(beth) + e cos(phde) - zt sin(delta) - ya
      g5 = rr cos(beta) - d cos(beth) - zf cos(omep) - u sin(epsilon) - xa
      g6 = rr sin(beta) - d sin(beth) - zf sin(omep) + u cos(epsilon) - ya
  rheonomic (m = 2, n = 2): q = (xl, yl), parameters r, omega, Lb, ell;
      yb(t) = r sin(omega t), xb(t) = sqrt(Lb^2 - yb(t)^2),
      Phi = [xb(t) xl + yb(t) yl,  xl^2 + yl^2 - ell^2]
  skate (m = 1, k = 1, n = 3): q = (x, y, th), parameters m, c;
      Phi = [x^2 + y^2 + sin(t) th - 1],
      e = [sin(th) xd - cos(th) yd + t th] (nonholonomic),
      M = diag(m, m, m (1 + sin(th)^2)),
      Q = [-c xd cos(th), -m sin(x) yd^2, c thd yd exp(-x^2)]

Errors (unknown model/backend, missing parameter, wrong vector length,
non-finite or non-numeric value, complex result) exit with status 2 and a
message on stderr starting with "kernels.py: error:".
"""

import json
import math
import sys
from fractions import Fraction

MODELS = ("chain", "andrews", "rheonomic", "skate")
BACKENDS = ("sympy", "symengine")

ANDREWS_PARAMS = ("rr", "d", "ss", "xb", "yb", "e", "zt", "xa", "ya", "zf", "u")
RHEONOMIC_PARAMS = ("r", "omega", "Lb", "ell")


class OracleError(Exception):
    pass


# --------------------------------------------------------------------------
# Backend shim: the same derivation code runs on either library.
# --------------------------------------------------------------------------
class Backend:
    def __init__(self, name):
        if name == "sympy":
            import sympy as lib
        elif name == "symengine":
            import symengine as lib
        else:
            raise OracleError(f"unknown backend {name!r} (expected one of {BACKENDS})")
        self.name = name
        self.lib = lib
        self.sin = lib.sin
        self.cos = lib.cos
        self.sqrt = lib.sqrt
        self.zero = lib.Integer(0)

    def symbol(self, name):
        return self.lib.Symbol(name)

    def diff(self, e, x):
        return self.lib.diff(e, x)

    def exact(self, value):
        """Exact rational equal to the given int/float."""
        fr = Fraction(value)
        return self.lib.Rational(fr.numerator, fr.denominator)

    def evaluate(self, e, subs):
        if self.name == "sympy":
            val = e.xreplace(subs).evalf(50)
            if not val.is_number:
                raise OracleError(f"expression did not evaluate to a number: {val}")
            re_, im_ = val.as_real_imag()
            try:
                re_f, im_f = float(re_), float(im_)
            except TypeError as exc:
                raise OracleError(f"expression did not evaluate to a finite number: {val}") from exc
        else:
            # MPFR evaluation; a complex intermediate (sqrt of a negative number)
            # makes evalf return a ComplexMPC (real=True would silently give NaN).
            val = e.subs(subs).evalf(200)
            try:
                c = complex(val)
            except Exception as exc:
                raise OracleError(f"expression did not evaluate to a number: {val}") from exc
            re_f, im_f = c.real, c.imag
        if im_f != 0.0:
            raise OracleError(f"complex value {re_f!r} + {im_f!r}i (e.g. sqrt of a negative number)")
        if not math.isfinite(re_f):
            raise OracleError(f"non-finite value {re_f!r} (singular point?)")
        return re_f


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------
def build_model(B, model, n_links=None):
    """Return (t, q_syms, param_syms(dict name->symbol), phi list)."""
    t = B.symbol("t")
    if model == "skate":
        x, y, th = q = [B.symbol(nm) for nm in ("x", "y", "th")]
        params = {nm: B.symbol("p_" + nm) for nm in ("m", "c")}
        return t, q, params, [x**2 + y**2 + B.sin(t) * th - 1]
    if model == "chain":
        N = n_links
        q = [B.symbol(f"q{i}") for i in range(1, N + 1)]
        ls = [B.symbol(f"l{i}") for i in range(1, N + 1)]
        X, Y = B.symbol("X"), B.symbol("Y")
        params = {f"l{i}": ls[i - 1] for i in range(1, N + 1)}
        params["X"], params["Y"] = X, Y
        a = []
        acc = B.zero
        for i in range(N):
            acc = acc + q[i]
            a.append(acc)
        phi_x = B.zero
        phi_y = B.zero
        for i in range(N):
            phi_x = phi_x + ls[i] * B.cos(a[i])
            phi_y = phi_y + ls[i] * B.sin(a[i])
        phi = [phi_x - X, phi_y - Y]
        return t, q, params, phi
    if model == "andrews":
        q = [B.symbol(nm) for nm in ("q_beta", "q_Theta", "q_gamma", "q_Phi", "q_delta", "q_Omega", "q_epsilon")]
        beta, Theta, gamma, Phi, delta, Omega, epsilon = q
        params = {nm: B.symbol("p_" + nm) for nm in ANDREWS_PARAMS}
        p = params
        sin, cos = B.sin, B.cos
        beth = beta + Theta
        phde = Phi + delta
        omep = Omega + epsilon
        g1 = p["rr"] * cos(beta) - p["d"] * cos(beth) - p["ss"] * sin(gamma) - p["xb"]
        g2 = p["rr"] * sin(beta) - p["d"] * sin(beth) + p["ss"] * cos(gamma) - p["yb"]
        g3 = p["rr"] * cos(beta) - p["d"] * cos(beth) - p["e"] * sin(phde) - p["zt"] * cos(delta) - p["xa"]
        g4 = p["rr"] * sin(beta) - p["d"] * sin(beth) + p["e"] * cos(phde) - p["zt"] * sin(delta) - p["ya"]
        g5 = p["rr"] * cos(beta) - p["d"] * cos(beth) - p["zf"] * cos(omep) - p["u"] * sin(epsilon) - p["xa"]
        g6 = p["rr"] * sin(beta) - p["d"] * sin(beth) - p["zf"] * sin(omep) + p["u"] * cos(epsilon) - p["ya"]
        return t, q, params, [g1, g2, g3, g4, g5, g6]
    if model == "rheonomic":
        xl, yl = B.symbol("xl"), B.symbol("yl")
        params = {nm: B.symbol("p_" + nm) for nm in RHEONOMIC_PARAMS}
        r, omega, Lb, ell = (params[nm] for nm in RHEONOMIC_PARAMS)
        yb = r * B.sin(omega * t)
        xb = B.sqrt(Lb**2 - yb**2)
        phi = [xb * xl + yb * yl, xl**2 + yl**2 - ell**2]
        return t, [xl, yl], params, phi
    raise OracleError(f"unknown model {model!r} (expected one of {MODELS})")


def derive(B, t, q, phi):
    """Symbolic kernels.  Returns (v_syms, dict of symbolic kernels)."""
    n = len(q)
    v = [B.symbol(f"v{j}") for j in range(1, n + 1)]
    phi_q = [[B.diff(f, qj) for qj in q] for f in phi]
    phi_t = [B.diff(f, t) for f in phi]
    phiq_v = []
    for row in phi_q:
        s = B.zero
        for j in range(n):
            s = s + row[j] * v[j]
        phiq_v.append(s)
    L = [[B.diff(w, qk) for qk in q] for w in phiq_v]
    gamma = []
    for i, f in enumerate(phi):
        Lv = B.zero
        phiqt_v = B.zero
        for j in range(n):
            Lv = Lv + L[i][j] * v[j]
            phiqt_v = phiqt_v + B.diff(phi_q[i][j], t) * v[j]
        phi_tt = B.diff(B.diff(f, t), t)
        gamma.append(-Lv - 2 * phiqt_v - phi_tt)
    return v, {"phi": phi, "phi_q": phi_q, "phi_t": phi_t, "gamma": gamma, "L": L}


def dynamics(B, model, t, q, v, params):
    """(M rows, Q, nonholonomic rows e) of a model; identity, zero and none except the skate."""
    n = len(q)
    one = B.lib.Integer(1)
    if model != "skate":
        mass = [[one if i == j else B.zero for j in range(n)] for i in range(n)]
        return mass, [B.zero] * n, []
    x, y, th = q
    xd, yd, thd = v
    m, c = params["m"], params["c"]
    mass = [[m, B.zero, B.zero], [B.zero, m, B.zero], [B.zero, B.zero, m * (1 + B.sin(th) ** 2)]]
    force = [-c * xd * B.cos(th), -m * B.sin(x) * yd**2, c * thd * yd * B.lib.exp(-x**2)]
    nh = [B.sin(th) * xd - B.cos(th) * yd + t * th]
    return mass, force, nh


def derive_tangents(B, t, q, v, K, dyn, lam, w):
    """Symbolic tangent kernels; lam and w are symbol lists (lengths m + k and n)."""
    mass, force, nh = dyn
    n, m = len(q), len(K["phi"])
    jac = lambda fs, xs: [[B.diff(f, x) for x in xs] for f in fs]  # noqa: E731
    dot = lambda xs, ys: sum((a * b for a, b in zip(xs, ys)), B.zero)  # noqa: E731
    A = jac(nh, v)
    mass_w = [dot(row, w) for row in mass]
    phi_q_t_lam = [dot([K["phi_q"][i][j] for i in range(m)], lam[:m]) for j in range(n)]
    a_t_lam = [dot([A[i][j] for i in range(len(nh))], lam[m:]) for j in range(n)]
    return {
        "force_q": jac(force, q),
        "force_v": jac(force, v),
        "mass_w_q": jac(mass_w, q),
        "phi_q_t_lambda_q": jac(phi_q_t_lam, q),
        "nh_matrix_t_lambda_q": jac(a_t_lam, q),
        "phi_qt": jac(K["phi_t"], q),
        "phi_tt": [B.diff(f, t) for f in K["phi_t"]],
    }


def nested(ev, e):
    """Evaluate a vector or a matrix (list of rows) of expressions."""
    return [nested(ev, x) for x in e] if isinstance(e, list) else ev(e)


# --------------------------------------------------------------------------
# Input handling
# --------------------------------------------------------------------------
def _number(x, what):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise OracleError(f"{what} must be a number, got {x!r}")
    if isinstance(x, float) and not math.isfinite(x):
        raise OracleError(f"{what} must be finite, got {x!r}")
    return x


def _vector(x, n, what):
    if not isinstance(x, list):
        raise OracleError(f"{what} must be a list of {n} numbers, got {type(x).__name__}")
    if len(x) != n:
        raise OracleError(f"{what} has length {len(x)}, expected {n}")
    return [_number(val, f"{what}[{k}]") for k, val in enumerate(x)]


def run(inp):
    if not isinstance(inp, dict):
        raise OracleError("input must be a JSON object")
    model = inp.get("model")
    if model not in MODELS:
        raise OracleError(f"unknown model {model!r} (expected one of {MODELS})")
    backend = inp.get("backend", "sympy")
    if backend not in BACKENDS:
        raise OracleError(f"unknown backend {backend!r} (expected one of {BACKENDS})")
    n_links = None
    if model == "chain":
        n_links = inp.get("n_links")
        if isinstance(n_links, bool) or not isinstance(n_links, int) or n_links < 1:
            raise OracleError(f"chain needs integer n_links >= 1, got {n_links!r}")
    params_in = inp.get("params", {})
    if not isinstance(params_in, dict):
        raise OracleError("params must be a JSON object")
    points = inp.get("points")
    if not isinstance(points, list):
        raise OracleError("points must be a list")

    B = Backend(backend)
    t, q, psyms, phi = build_model(B, model, n_links)
    missing = [nm for nm in psyms if nm not in params_in]
    if missing:
        raise OracleError(f"missing parameter(s) for model {model!r}: {', '.join(missing)}")
    extra = [nm for nm in params_in if nm not in psyms]
    if extra:
        print(f"kernels.py: warning: ignoring unused parameter(s): {', '.join(extra)}", file=sys.stderr)
    n = len(q)
    v, K = derive(B, t, q, phi)
    dyn = dynamics(B, model, t, q, v, psyms)
    rows = len(phi) + len(dyn[2])
    lam = [B.symbol(f"lambda{i}") for i in range(rows)]
    w = [B.symbol(f"w{j}") for j in range(n)]
    T = derive_tangents(B, t, q, v, K, dyn, lam, w)

    base = {psyms[nm]: B.exact(_number(params_in[nm], f"params[{nm!r}]")) for nm in psyms}
    out_points = []
    for k, pt in enumerate(points):
        if not isinstance(pt, dict):
            raise OracleError(f"points[{k}] must be an object")
        tv = _number(pt.get("t"), f"points[{k}].t")
        qv = _vector(pt.get("q"), n, f"points[{k}].q")
        vv = _vector(pt.get("v"), n, f"points[{k}].v")
        subs = dict(base)
        subs[t] = B.exact(tv)
        for j in range(n):
            subs[q[j]] = B.exact(qv[j])
            subs[v[j]] = B.exact(vv[j])
        ev = lambda e: B.evaluate(e, subs)  # noqa: E731
        out = {
            "phi": [ev(e) for e in K["phi"]],
            "phi_q": [[ev(e) for e in row] for row in K["phi_q"]],
            "phi_t": [ev(e) for e in K["phi_t"]],
            "gamma": [ev(e) for e in K["gamma"]],
            "L": [[ev(e) for e in row] for row in K["L"]],
        }
        if "lambda" in pt or "w" in pt:
            lv = _vector(pt.get("lambda"), rows, f"points[{k}].lambda")
            wv = _vector(pt.get("w"), n, f"points[{k}].w")
            for sym, val in list(zip(lam, lv)) + list(zip(w, wv)):
                subs[sym] = B.exact(val)
            for name, e in T.items():
                out[name] = nested(ev, e)
        out_points.append(out)
    return {"model": model, "backend": backend, "points": out_points}


def main(argv):
    if len(argv) != 3:
        print("usage: python kernels.py IN.json OUT.json", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as fh:
            inp = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"kernels.py: error: cannot read input {argv[1]!r}: {exc}", file=sys.stderr)
        return 2
    try:
        out = run(inp)
    except OracleError as exc:
        print(f"kernels.py: error: {exc}", file=sys.stderr)
        return 2
    with open(argv[2], "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
