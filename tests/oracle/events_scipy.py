"""Peer comparison for events (issue 25): the bouncing ball with SciPy's solve_ivp events beside
`mbsim simulate bouncing-ball`, both at rtol 1e-12 over the first impacts.

SciPy: DOP853 with a terminal event g = y - r (direction -1), restarted after each impact with
v <- -e v (the documented pattern for impacts); its event times come from its dense output and a
root finder (brentq) to xtol 4 eps. mbsim: RKSTAB with the event loop. Both are compared with the
closed form t1 = sqrt(2 h0 / g), t_{j+1} = t_j + 2 e^j v1 / g, and timed in CPU seconds
(time.process_time for SciPy's process; the CLI's thread CPU `cpu_seconds`, minimum over
--repeat runs). Usage: python events_scipy.py PATH/TO/mbsim [impacts]
"""
import json, subprocess, sys, tempfile, time

import numpy as np
from scipy.integrate import solve_ivp

G, E, R, H0 = 9.81, 0.8, 0.1, 1.0


def exact(count):
    t1 = (2 * H0 / G) ** 0.5
    times, v = [t1], G * t1
    for _ in range(1, count):
        v *= E
        times.append(times[-1] + 2 * v / G)
    return np.array(times)


def scipy_run(count, t_end):
    def f(t, z):
        return [z[1], -G]

    def floor(t, z):
        return z[0] - R

    floor.terminal, floor.direction = True, -1
    t, z, hits, nfev = 0.0, [H0 + R, 0.0], [], 0
    while len(hits) < count and t < t_end:
        sol = solve_ivp(f, (t, t_end), z, method="DOP853", rtol=1e-12, atol=1e-12, events=floor)
        nfev += sol.nfev
        if sol.status != 1:
            break
        t = sol.t_events[0][0]
        y, v = sol.y_events[0][0]
        hits.append(t)
        z = [R, -E * v]
    return np.array(hits), nfev


def main():
    mbsim = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    ref = exact(count)
    t_end = ref[-1] + 0.5 * (ref[-1] - ref[-2])
    hits, nfev = scipy_run(count, t_end)
    scipy_err = np.max(np.abs(hits - ref[: len(hits)]) / ref[: len(hits)])
    repeats = 20
    start = time.process_time()
    for _ in range(repeats):
        scipy_run(count, t_end)
    scipy_cpu = (time.process_time() - start) / repeats
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(
            [mbsim, "simulate", "bouncing-ball", "--t-end", repr(float(t_end)), "--rtol", "1e-12",
             "--atol", "1e-12", "--output", "final", "--no-plots", "--repeat", str(repeats),
             "--out", out],
            check=True, capture_output=True,
        )
        summary = json.load(open(f"{out}/summary.json"))
        events = [e for e in summary["events"] if e["kind"] == "impact"][:count]
    ours = np.array([e["t"] for e in events])
    ours_err = np.max(np.abs(ours - ref[: len(ours)]) / ref[: len(ours)])
    ours_cpu = summary["repeat"]["cpu_seconds_min"] if summary["repeat"] else summary["cpu_seconds"]
    print(f"impacts compared: scipy {len(hits)}, mbsim {len(ours)} (closed form {count})")
    print(f"event time error (relative, max): scipy DOP853 {scipy_err:.1e}, mbsim RKSTAB {ours_err:.1e}")
    print(f"CPU seconds per run: scipy {scipy_cpu:.2e} (nfev {nfev}), mbsim {ours_cpu:.2e} (NFCN {summary['NFCN']})")
    print(f"ratio scipy / mbsim: {scipy_cpu / ours_cpu:.0f}")


if __name__ == "__main__":
    main()
