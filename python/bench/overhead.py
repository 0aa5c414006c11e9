"""The overhead of one Python `simulate` call against the same run from Rust, in the same
process and the same build: `_native._rust_seconds` times `mbsim_cli::simulate::run` (what
the binding calls, minus the argument conversion and the NumPy/summary conversion) with the
GIL released; the Python side times `Model.simulate` end to end. Wall time (both sides are
single-threaded and measured alike); medians of interleaved repeats.

    .venv/bin/python python/bench/overhead.py [model] [rtol]
"""

import statistics
import sys
import time

import mbsim
from mbsim import _native

model = sys.argv[1] if len(sys.argv) > 1 else "andrews"
rtol = float(sys.argv[2]) if len(sys.argv) > 2 else 1e-8
options = {"rtol": rtol}
m = mbsim.load(model)
m.simulate(**options)  # warm up
py, rust = [], []
for _ in range(30):
    start = time.perf_counter()
    m.simulate(**options)
    py.append(time.perf_counter() - start)
    rust.extend(_native._rust_seconds(model, options, 1))
p, r = statistics.median(py), statistics.median(rust)
print(f"{model} rtol {rtol}: Python simulate {p * 1e3:.3f} ms, Rust run {r * 1e3:.3f} ms, "
      f"overhead {(p / r - 1) * 100:+.1f} % ({len(py)} interleaved repeats, medians)")
