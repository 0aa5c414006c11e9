"""Simulate Andrews' squeezing mechanism from Python and plot it (needs matplotlib).

    .venv/bin/pip install matplotlib
    .venv/bin/python python/examples/plot_andrews.py   # writes andrews.png
"""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import mbsim  # noqa: E402

andrews = mbsim.load("andrews")
run = andrews.simulate(rtol=1e-8, t_end=0.03, dt_out=1e-4)
print(run.stats["NFCN"], "function evaluations, max drift", run.stats["max_drift_position"])

fig, (ax_q, ax_drift) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
for name in run.coordinates:
    ax_q.plot(run.t, run.coordinate(name), label=name)
ax_q.set_ylabel("q [rad]")
ax_q.legend(ncol=4, fontsize="small")
ax_drift.semilogy(run.t, run.drift_position + 1e-18, label="|Φ|")
ax_drift.semilogy(run.t, run.drift_velocity + 1e-18, label="|Φ̇|")
ax_drift.set_xlabel("t [s]")
ax_drift.set_ylabel("drift")
ax_drift.legend()
fig.suptitle("Andrews' squeezing mechanism (RKSTAB + PStab, rtol 1e-8)")
fig.tight_layout()
fig.savefig("andrews.png", dpi=120)
print("wrote andrews.png")
