"""The IFToMM basic set (A01 simple pendulum, A02 N-four-bar, A03 Andrews) in EXUDYN's Python
API, the peer of `mbsim repro iftomm`, and the independent references of A01 and A02.

Each problem is built from EXUDYN's own items (mass points and rigid bodies in 2D, distance
constraints, revolute joints, a spring-damper, loads) and solved with EXUDYN's generalized-alpha
integrator (its solver for constrained systems; its explicit solvers refuse these constraints)
at a constant step chosen so that the run reaches the benchmark's high-accuracy class (1e-3);
`--steps` overrides it. A run SolveDynamic gives up on (EXUDYN stops at A02's singular
configurations, where the chain is flat) is reported with the time it reached, its rows up to
there and the CPU time it spent. CPU time is `time.process_time()` around `exu.SolveDynamic` only
(building the system is not counted, as `mbsim` does not count generating its kernels).

References written beside the EXUDYN trajectories (at the same recorded times):
- A01: the closed form of the pendulum released at rest from the horizontal, phi(t) =
  2 asin(k sn(K - w t, k)) from the downward vertical, k = sin(pi/4), w = sqrt(g/l)
  (scipy.special.ellipj); P1 = (l sin phi, -l cos phi).
- A02: the exact 1-DOF reduction of the chain (models/src/four_bar_chain.rs): every crank at
  the same angle theta, theta'' = -kappa cos theta, kappa = (g/l) 3(3N+1)/(2(4N+1)), integrated
  by SciPy's DOP853 at rtol 1e-13, atol 1e-13; B0 = (l cos theta, l sin theta).

Usage: iftomm.py --out DIR [--problems A01,A02,A03] [--span-scale S] [--steps A01=N,...]
Writes DIR/exudyn_<P>.csv (t as recorded, monitored values; the rows nearest to the output
grid), DIR/reference_<P>.csv (A01, A02) and
DIR/exudyn.json (per problem: steps, step size, CPU seconds, solver settings, versions).
"""

import argparse
import json
import math
import os
import platform
import time

import numpy as np
import scipy
import scipy.integrate
import scipy.special
import exudyn as exu
from exudyn.itemInterface import (
    DistanceConstraint, Force, LoadMassProportional, LoadTorqueVector, MarkerBodyMass,
    MarkerBodyPosition, MarkerBodyRigid, MarkerNodePosition, MassPoint2D, NodePoint2D,
    NodeRigidBody2D, ObjectConnectorSpringDamper, ObjectGround, ObjectRigidBody2D,
    RevoluteJoint2D, SensorBody, SensorNode,
)

G = 9.81

# Numerical damping of generalized-alpha (rho_inf; EXUDYN's default 0.9).
RHO = 0.9

# The benchmark's spans and output steps (lim.ii.udc.es/mbsbenchmark A01, A02 specifications;
# A03 is the Hairer-Wanner interval, the span the Andrews problem is known by).
SPEC = {
    "A01": {"t_end": 2000.0, "outputs": 4000},
    "A02": {"t_end": 20.0, "outputs": 400},
    "A03": {"t_end": 0.03, "outputs": 300},
}

# Generalized-alpha steps aimed at the high-accuracy class (error <= 1e-3 in the metric of
# `mbsim repro iftomm`): found by refining h on shorter spans (A01 on 200 s: 2.1e-4 at
# h = 7.8e-6 s, growing about linearly with the span; A02 on 2 s: 6.1e-4 at 3.1e-4 s; A03:
# 6.7e-4 at 1.25e-6 s), then run on the whole span, whose accuracy the table reports as
# measured. A02 does not get through: SolveDynamic stops at a singular (flat) configuration of
# the chain at every step tried (1e-4 s at t = 2.65 s, 3e-5 s at 0.72 s).
STEPS = {"A01": 512_000_000, "A02": 200_000, "A03": 24_000}


def settings(t_end, steps, outputs):
    s = exu.SimulationSettings()
    s.timeIntegration.endTime = t_end
    s.timeIntegration.numberOfSteps = steps
    s.timeIntegration.verboseMode = 0
    s.timeIntegration.generalizedAlpha.spectralRadius = RHO
    # Newton's tolerances: the defaults (1e-8 relative, 1e-10 absolute) cap A01's accuracy at
    # 2e-5 m over 200 s whatever the step (its error grows as h shrinks, from 7.8e-5 to 7.8e-6 s);
    # at these it converges with h.
    s.timeIntegration.newton.relativeTolerance = 1e-12
    s.timeIntegration.newton.absoluteTolerance = 1e-14
    s.solution.file.write = False
    # A little short of the output interval, so that a write time reached one round-off late
    # does not skip a grid step (`on_grid` picks the rows nearest to the grid).
    s.solution.sensors.writePeriod = (t_end / outputs) * (1.0 - 1e-9)
    s.displayComputationTime = False
    return s


# Why the last SolveDynamic stopped early (empty when it reached the end).
FAILED = {}


def solve(mbs, s):
    """The CPU time of SolveDynamic; a failure is recorded in FAILED (the caller's rows end
    where it stopped) instead of raised."""
    mbs.Assemble()
    cpu = time.process_time()
    try:
        exu.SolveDynamic(mbs, s, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    except exu.SolverError as error:
        FAILED["error"] = str(error)
    return time.process_time() - cpu


def a01(t_end, steps, outputs):
    """A point mass of 1 kg on a massless 1 m link, released at rest from (1, 0)."""
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    node = mbs.AddNode(NodePoint2D(referenceCoordinates=[1.0, 0.0]))
    mbs.AddObject(MassPoint2D(physicsMass=1.0, nodeNumber=node))
    bob = mbs.AddMarker(MarkerNodePosition(nodeNumber=node))
    pivot = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0, 0.0, 0.0]))
    mbs.AddObject(DistanceConstraint(markerNumbers=[pivot, bob], distance=1.0))
    mbs.AddLoad(Force(markerNumber=bob, loadVector=[0.0, -G, 0.0]))
    sensor = mbs.AddSensor(SensorNode(nodeNumber=node, storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Position))
    cpu = solve(mbs, settings(t_end, steps, outputs))
    data = mbs.GetSensorStoredData(sensor)
    return cpu, data[:, 0:3]


def a01_reference(times):
    k = math.sin(math.pi / 4.0)
    big_k = scipy.special.ellipk(k * k)
    sn, _, _, _ = scipy.special.ellipj(big_k - math.sqrt(G) * np.asarray(times), k * k)
    phi = 2.0 * np.arcsin(k * sn)
    return np.column_stack([times, np.sin(phi), -np.cos(phi)])


def rod(mbs, mass, length, centre, angle, velocity, omega):
    node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[centre[0], centre[1], angle],
                                       initialVelocities=[velocity[0], velocity[1], omega]))
    body = mbs.AddObject(ObjectRigidBody2D(physicsMass=mass,
                                           physicsInertia=mass * length * length / 12.0,
                                           nodeNumber=node))
    mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=body)),
                                     loadVector=[0.0, -G, 0.0]))
    return body


def pin(mbs, body_a, local_a, body_b, local_b):
    ma = mbs.AddMarker(MarkerBodyPosition(bodyNumber=body_a, localPosition=[*local_a, 0.0]))
    mb = mbs.AddMarker(MarkerBodyPosition(bodyNumber=body_b, localPosition=[*local_b, 0.0]))
    mbs.AddObject(RevoluteJoint2D(markerNumbers=[ma, mb]))


def a02(t_end, steps, outputs, windows=40):
    """N = 40 windows: 41 cranks (1 m, 1 kg) pivoted every metre, 40 couplers; all cranks
    vertical, B0 (the first crank's tip) moving at +1 m/s along x."""
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    omega = -1.0  # tip velocity omega x (0, 1) = (1, 0)
    cranks = [rod(mbs, 1.0, 1.0, [i, 0.5], math.pi / 2.0, [0.5, 0.0], omega)
              for i in range(windows + 1)]
    couplers = [rod(mbs, 1.0, 1.0, [i + 0.5, 1.0], 0.0, [1.0, 0.0], 0.0)
                for i in range(windows)]
    for i, crank in enumerate(cranks):
        pin(mbs, ground, [float(i), 0.0], crank, [-0.5, 0.0])
    for i, coupler in enumerate(couplers):
        pin(mbs, cranks[i], [0.5, 0.0], coupler, [-0.5, 0.0])
        pin(mbs, cranks[i + 1], [0.5, 0.0], coupler, [0.5, 0.0])
    sensor = mbs.AddSensor(SensorBody(bodyNumber=cranks[0], localPosition=[0.5, 0.0, 0.0],
                                      storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Position))
    cpu = solve(mbs, settings(t_end, steps, outputs))
    data = mbs.GetSensorStoredData(sensor)
    return cpu, data[:, 0:3]


def a02_reference(times, windows=40):
    n = float(windows)
    kappa = G * 3.0 * (3.0 * n + 1.0) / (2.0 * (4.0 * n + 1.0))
    sol = scipy.integrate.solve_ivp(lambda t, y: [y[1], -kappa * math.cos(y[0])],
                                    (times[0], times[-1]), [math.pi / 2.0, -1.0],
                                    method="DOP853", t_eval=times, rtol=1e-13, atol=1e-13)
    theta = sol.y[0]
    return np.column_stack([times, np.cos(theta), np.sin(theta)])


# Andrews' squeezer (Hairer-Wanner II VII.7): the published data and consistent start.
ANDREWS = dict(m1=.04325, m2=.00365, m3=.02373, m4=.00706, m5=.07050, m6=.00706, m7=.05498,
               xa=-.06934, ya=-.00227, xb=-.03635, yb=.03273, xc=.014, yc=.072, c0=4530.0,
               i1=2.194e-6, i2=4.410e-7, i3=5.255e-6, i4=5.667e-7, i5=1.169e-5, i6=5.667e-7,
               i7=1.912e-5, d=28e-3, da=115e-4, e=2e-2, ea=1421e-5, rr=7e-3, ra=92e-5,
               l0=7785e-5, ss=35e-3, sa=1874e-5, sb=1043e-5, sc=18e-3, sd=2e-2, ta=2308e-5,
               tb=916e-5, u=4e-2, ua=1228e-5, ub=449e-5, zf=2e-2, zt=4e-2, fa=1421e-5, mom=33e-3)
ANDREWS_Q0 = [-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
              0.222668390165885884674473185609, 0.487364979543842550225598953530,
              -0.222668390165885884674473185609, 1.23054744454982119249735015568]


def rot(a, v):
    c, s = math.cos(a), math.sin(a)
    return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1]])


def a03(t_end, steps, outputs):
    """Seven rigid bodies, ten revolute joints, the spring D-C and the motor torque on body 1,
    placed at the published consistent start (the world positions of Hairer's coordinates)."""
    p = ANDREWS
    beta, theta, gamma, phi, delta, omega, eps = ANDREWS_Q0
    o, a, b, c = (np.array([0.0, 0.0]), np.array([p["xa"], p["ya"]]),
                  np.array([p["xb"], p["yb"]]), np.array([p["xc"], p["yc"]]))
    pp = p["rr"] * np.array([math.cos(beta), math.sin(beta)])
    beth, phde, omep = beta + theta, phi + delta, omega + eps
    e_pt = pp - p["d"] * np.array([math.cos(beth), math.sin(beth)])
    f_pt = a + p["zt"] * np.array([math.cos(delta), math.sin(delta)])
    g_pt = a + p["u"] * np.array([math.sin(eps), -math.cos(eps)])
    d_pt = b + rot(gamma, [p["sd"], -p["sc"]])
    # (angle, centre of mass, mass, inertia) per body; angles are the bodies' x axes.
    bodies = [
        (beta, p["ra"] * np.array([math.cos(beta), math.sin(beta)]), p["m1"], p["i1"]),
        (beth, pp - p["da"] * np.array([math.cos(beth), math.sin(beth)]), p["m2"], p["i2"]),
        (gamma, b + rot(gamma, [p["sb"], -p["sa"]]), p["m3"], p["i3"]),
        (phde, f_pt + (p["e"] - p["ea"]) * np.array([-math.sin(phde), math.cos(phde)]),
         p["m4"], p["i4"]),
        (delta, a + rot(delta, [p["ta"], p["tb"]]), p["m5"], p["i5"]),
        (omep, g_pt + (p["zf"] - p["fa"]) * np.array([math.cos(omep), math.sin(omep)]),
         p["m6"], p["i6"]),
        (eps, a + rot(eps, [p["ua"], p["ub"]]), p["m7"], p["i7"]),
    ]
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ObjectGround())
    ids = []
    for angle, centre, mass, inertia in bodies:
        node = mbs.AddNode(NodeRigidBody2D(referenceCoordinates=[centre[0], centre[1], angle]))
        ids.append(mbs.AddObject(ObjectRigidBody2D(physicsMass=mass, physicsInertia=inertia,
                                                   nodeNumber=node)))

    def local(k, world):
        angle, centre = bodies[k][0], bodies[k][1]
        return list(rot(-angle, world - centre))

    def ground_pin(k, world):
        pin(mbs, ground, list(world), ids[k], local(k, world))

    def body_pin(k, j, world):
        pin(mbs, ids[k], local(k, world), ids[j], local(j, world))

    ground_pin(0, o)
    body_pin(0, 1, pp)
    ground_pin(2, b)
    body_pin(1, 2, e_pt)
    body_pin(1, 3, e_pt)
    body_pin(1, 5, e_pt)
    body_pin(3, 4, f_pt)
    ground_pin(4, a)
    body_pin(5, 6, g_pt)
    ground_pin(6, a)
    md = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ids[2], localPosition=[*local(2, d_pt), 0.0]))
    mc = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[*c, 0.0]))
    mbs.AddObject(ObjectConnectorSpringDamper(markerNumbers=[mc, md], stiffness=p["c0"],
                                              damping=0.0, referenceLength=p["l0"]))
    mbs.AddLoad(LoadTorqueVector(markerNumber=mbs.AddMarker(MarkerBodyRigid(bodyNumber=ids[0])),
                                 loadVector=[0.0, 0.0, p["mom"]]))
    sensor = mbs.AddSensor(SensorBody(bodyNumber=ids[0], storeInternal=True,
                                      outputVariableType=exu.OutputVariableType.Rotation))
    cpu = solve(mbs, settings(t_end, steps, outputs))
    data = mbs.GetSensorStoredData(sensor)
    # beta: the sensor gives the rotation from the node's reference angle (beta at t = 0).
    return cpu, np.column_stack([data[:, 0], beta + data[:, -1]])


def on_grid(name, data, times):
    """The sensor rows nearest to the output times, with the times EXUDYN wrote them at (its
    write times accumulate the period in floating point, so a row may sit a step or so off the
    grid; `mbsim repro iftomm` evaluates the references at the recorded times)."""
    rows = np.clip(np.searchsorted(data[:, 0], times), 1, data.shape[0] - 1)
    rows = np.where(np.abs(data[rows - 1, 0] - times) < np.abs(data[rows, 0] - times),
                    rows - 1, rows)
    spacing = times[1] - times[0]
    offset = np.max(np.abs(data[rows, 0] - times))
    if offset > 0.25 * spacing or len(set(rows.tolist())) != len(rows):
        raise SystemExit(f"{name}: no distinct sensor row near every output time "
                         f"(offset {offset:.3e} of a spacing {spacing:.3e})")
    return data[rows]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--problems", default="A01,A02,A03")
    parser.add_argument("--span-scale", type=float, default=1.0)
    parser.add_argument("--steps", default="")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    steps = dict(STEPS)
    for item in filter(None, args.steps.split(",")):
        name, value = item.split("=")
        steps[name] = int(value)
    runs = {"A01": a01, "A02": a02, "A03": a03}
    references = {"A01": a01_reference, "A02": a02_reference}
    report = {
        "peer": "EXUDYN " + exu.GetVersionString(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "solver": f"generalized-alpha, spectral radius {RHO}, Newton tolerances 1e-12 "
                  "relative / 1e-14 absolute (defaults otherwise), constant step",
        "problems": {},
    }
    for name in filter(None, args.problems.split(",")):
        spec = SPEC[name]
        t_end = spec["t_end"] * args.span_scale
        outputs = spec["outputs"]
        # A whole number of steps per output interval, so the sensor writes on the grid.
        n = outputs * max(1, int(round(steps[name] * args.span_scale / outputs)))
        FAILED.clear()
        cpu, data = runs[name](t_end, n, outputs)
        times = np.linspace(0.0, t_end, outputs + 1)
        failed = dict(FAILED)
        if failed:
            failed["t"] = float(data[-1, 0])
            times = times[times <= data[-1, 0] + 0.25 * (times[1] - times[0])]
        data = on_grid(name, data, times)
        np.savetxt(os.path.join(args.out, f"exudyn_{name}.csv"), data, delimiter=",",
                   fmt="%.17e")
        if name in references:
            np.savetxt(os.path.join(args.out, f"reference_{name}.csv"),
                       references[name](data[:, 0]),
                       delimiter=",", fmt="%.17e")
        report["problems"][name] = {"t_end": t_end, "steps": n, "h": t_end / n,
                                    "cpu_seconds": cpu, "outputs": spec["outputs"],
                                    "failed": failed or None}
    with open(os.path.join(args.out, "exudyn.json"), "w") as f:
        json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
