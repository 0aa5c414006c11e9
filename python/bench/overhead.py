"""The overhead of one Python `simulate` call against the same run from Rust, in the same
process and the same build: `_native._rust_seconds` times `mbsim_cli::simulate::run` (what
the binding calls, minus the argument conversion and the NumPy/summary conversion) with the
GIL released; the Python side times `Model.simulate` end to end. Wall time, and process CPU
time (`time.process_time`, the whole process; both runs are single-threaded) around each call;
medians of interleaved repeats.

    .venv/bin/python python/bench/overhead.py [model] [rtol] [t_end] [repeats]
"""

import statistics
import sys
import time

import mbsim
from mbsim import _native

model = sys.argv[1] if len(sys.argv) > 1 else "andrews"
rtol = float(sys.argv[2]) if len(sys.argv) > 2 else 1e-8
t_end = float(sys.argv[3]) if len(sys.argv) > 3 else None
repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 40
options = {"rtol": rtol, "t_end": t_end}
m = mbsim.load(model)
m.simulate(**options)  # warm up
wall_py, wall_rust, cpu_py, cpu_rust = [], [], [], []
for _ in range(repeats):
    w, c = time.perf_counter(), time.process_time()
    m.simulate(**options)
    wall_py.append(time.perf_counter() - w)
    cpu_py.append(time.process_time() - c)
    c = time.process_time()
    wall_rust.extend(_native._rust_seconds(model, {k: v for k, v in options.items() if v is not None}, 1))
    cpu_rust.append(time.process_time() - c)
med = statistics.median
print(
    f"{model} rtol {rtol} t_end {t_end or 'default'}: {repeats} interleaved repeats, medians\n"
    f"  wall: Python simulate {med(wall_py) * 1e3:.3f} ms, Rust run {med(wall_rust) * 1e3:.3f} ms, "
    f"overhead {(med(wall_py) / med(wall_rust) - 1) * 100:+.2f} %\n"
    f"  process CPU: Python simulate {med(cpu_py) * 1e3:.3f} ms, Rust run (call) {med(cpu_rust) * 1e3:.3f} ms, "
    f"overhead {(med(cpu_py) / med(cpu_rust) - 1) * 100:+.2f} %"
)
