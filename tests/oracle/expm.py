"""SciPy's expm as the oracle of the HPIM 2^N exponential (runtime/tests/suite/hpim_oracle.rs).

Usage: expm.py IN OUT. IN holds one case per block: a line "n tau" followed by n lines of n
floats (the matrix H, row by row). OUT receives, per case, n lines of n floats of
scipy.linalg.expm(H * tau), each printed with repr (round-trips exactly). Fails loudly (non-zero
exit, ImportError) when SciPy is missing: the oracle is never optional.
"""

import sys

import numpy as np
import scipy.linalg


def main(src, dst):
    with open(src) as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    out = []
    i = 0
    while i < len(lines):
        n_text, tau_text = lines[i].split()
        n, tau = int(n_text), float(tau_text)
        h = np.array([[float(x) for x in lines[i + 1 + r].split()] for r in range(n)])
        t = scipy.linalg.expm(h * tau)
        out.extend(" ".join(repr(float(x)) for x in row) for row in t)
        i += 1 + n
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
