#!/usr/bin/env python3
"""Independent high-precision oracle for single expressions and their derivatives.

Usage:  python functions.py IN.json OUT.json

Reads expressions in the pipeline's s-expression notation (the subset used by
the tests: numbers, symbols, + - * / ^ sqrt and the unary functions sin cos
tan exp ln abs asin acos atan sinh cosh tanh, plus atan2), builds them in
SymPy or SymEngine with that library's own functions, differentiates them
there and evaluates, at every requested point, the value, every first partial
derivative and the second derivative in the first variable.

Numerical evaluation is done exactly as in kernels.py (no float arithmetic on
the way): inputs become the exact rationals of their doubles; SymPy evaluates
with evalf(50), SymEngine with evalf(200 bits); each result is rounded once to
the nearest double.

Input JSON
----------
  {"backend": "sympy" | "symengine",
   "vars": ["x", "y"],
   "exprs": ["(asin (* x y))", ...],
   "points": [[x0, y0], ...]}            (one value per variable)

Output JSON
-----------
  {"results": [[{"value": f, "d": [df/dvar...], "d2": d2f/dvar0^2}, ...per point], ...per expr]}

Errors (unknown head or symbol, malformed text, complex or non-finite values)
exit with status 2 and a message on stderr starting with "functions.py: error:".
"""

import json
import sys
from fractions import Fraction

sys.path.insert(0, __import__("os").path.dirname(__file__))
from kernels import Backend, OracleError  # noqa: E402

UNARY = ("sin", "cos", "tan", "exp", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sqrt")


def tokenize(text):
    return text.replace("(", " ( ").replace(")", " ) ").split()


def number(B, tok):
    if "/" in tok:
        p, q = tok.split("/")
        return B.lib.Rational(int(p), int(q))
    fr = Fraction(float(tok)) if any(c in tok for c in ".eE") else Fraction(int(tok))
    return B.lib.Rational(fr.numerator, fr.denominator)


def parse(B, tokens, pos, syms):
    tok = tokens[pos]
    if tok == "(":
        head = tokens[pos + 1]
        pos += 2
        args = []
        while tokens[pos] != ")":
            arg, pos = parse(B, tokens, pos, syms)
            args.append(arg)
        return apply(B, head, args), pos + 1
    if tok[0].isdigit() or (tok[0] in "+-." and len(tok) > 1):
        return number(B, tok), pos + 1
    if tok not in syms:
        raise OracleError(f"unknown symbol {tok!r}")
    return syms[tok], pos + 1


def apply(B, head, args):
    lib = B.lib
    if head == "+":
        out = lib.Integer(0)
        for a in args:
            out = out + a
        return out
    if head == "*":
        out = lib.Integer(1)
        for a in args:
            out = out * a
        return out
    if head == "-":
        return -args[0] if len(args) == 1 else args[0] - args[1]
    if head == "/":
        return args[0] / args[1]
    if head == "^":
        return args[0] ** args[1]
    if head == "ln":
        return lib.log(args[0])
    if head == "abs":
        return lib.Abs(args[0])
    if head == "atan2":
        return lib.atan2(args[0], args[1])
    if head in UNARY:
        return getattr(lib, head)(args[0])
    raise OracleError(f"unknown head {head!r}")


def main(argv):
    if len(argv) != 3:
        raise OracleError("usage: functions.py IN.json OUT.json")
    with open(argv[1]) as f:
        spec = json.load(f)
    B = Backend(spec.get("backend", "sympy"))
    names = spec["vars"]
    syms = {n: B.symbol(n) for n in names}
    results = []
    for text in spec["exprs"]:
        e, end = parse(B, tokenize(text), 0, syms)
        first = [B.diff(e, syms[n]) for n in names]
        second = B.diff(first[0], syms[names[0]])
        rows = []
        for point in spec["points"]:
            subs = {syms[n]: B.exact(v) for n, v in zip(names, point)}
            rows.append({
                "value": B.evaluate(e, subs),
                "d": [B.evaluate(d, subs) for d in first],
                "d2": B.evaluate(second, subs),
            })
        results.append(rows)
    with open(argv[2], "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    try:
        main(sys.argv)
    except (OracleError, KeyError, ValueError, IndexError) as exc:
        print(f"functions.py: error: {exc}", file=sys.stderr)
        sys.exit(2)
