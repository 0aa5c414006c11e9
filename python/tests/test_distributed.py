"""Sweeps beyond one machine, on this machine: a two-node Ray cluster (a head and a worker
node started as separate `ray start` processes on localhost), a Dask LocalCluster of several
worker processes, a worker killed in the middle of each, and job-array shards merged by
`mbsim sweep-merge`. Every distributed table is compared run by run with the local sweep of
the same seed (`Model.sweep`, the CLI's sweep.csv): equal in every column but the timings.

Ray, Dask and psutil are installed by python/requirements.txt; a missing one fails here
(an ImportError), it never skips.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas
import psutil
import pytest

import mbsim

TIMING = ("cpu_seconds", "wall_seconds")

# Ray's token authentication, with a token of this session only, set before anything imports
# Ray (it reads the mode when it loads): the test's nodes and this driver share it through
# the environment, never through ~/.ray/auth_token (shared by every cluster of the user).
RAY_TOKEN = os.urandom(32).hex()
os.environ["RAY_AUTH_MODE"] = "token"
os.environ["RAY_AUTH_TOKEN"] = RAY_TOKEN

# A random sweep in which some runs fail: the pendulum's period shrinks as g grows, so with
# a step limit the runs of large g stop with TooManySteps — rows with their error kind.
MODEL = "pendulum"
# Runs of 2 to 20 ms, about half of them failed; 160 runs, 16 tasks of 10.
SWEEP = dict(
    random={"g": (1.0, 400.0), "len": (0.5, 2.0)},
    draws=160,
    seed=29,
    t_end=20.0,
    rtol=1e-10,
    max_steps=12000,
)


def local_table(tmp_path: Path) -> dict:
    """The local sweep: the CLI's own run (sweep.csv read back), the reference."""
    options = {k: v for k, v in SWEEP.items() if k not in ("random", "draws", "seed")}
    return mbsim.load(MODEL).sweep(
        tmp_path / "local", random=SWEEP["random"], draws=SWEEP["draws"], seed=SWEEP["seed"],
        **options,
    )


def assert_same_runs(table: pandas.DataFrame, local: dict) -> None:
    """Every run exactly once, in order, and equal to the local sweep's run cell by cell
    (NaN equal to NaN: the empty cells of a failed run) except the timings."""
    n = len(local["run"])
    assert list(table["run"]) == list(range(n)), "every run exactly once, in run order"
    assert list(table.columns) == list(local.keys())
    for name, column in local.items():
        if name in TIMING:
            continue
        got = table[name].to_numpy()
        if isinstance(column, list):
            assert list(got) == column, name
        else:
            assert np.array_equal(got.astype(float), column, equal_nan=True), name
    kinds = set(table["error_kind"][table["status"] == "failed"])
    assert kinds == {"TooManySteps"}, kinds
    failed = int((table["status"] == "failed").sum())
    assert 0 < failed < n, f"the sweep must mix ok and failed runs ({failed} of {n} failed)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_cli() -> str:
    ray = Path(sys.executable).parent / "ray"
    assert ray.is_file(), f"{ray} missing: python/requirements.txt installs ray"
    return str(ray)


def start_node(args: list[str], log: Path) -> subprocess.Popen:
    """`ray start ... --block`: the node's processes live as long as this one (SIGTERM stops
    them), so the test ends exactly the processes it started. The cluster's token (Ray's
    token authentication) is in the environment of the nodes and of this driver, never in
    ~/.ray/auth_token (a file other clusters on the machine would share)."""
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    return subprocess.Popen(
        [ray_cli(), "start", "--block", "--disable-usage-stats", *args],
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )


def node_ports() -> list[str]:
    return [
        f"--node-manager-port={free_port()}",
        f"--object-manager-port={free_port()}",
        f"--dashboard-agent-listen-port={free_port()}",
        f"--dashboard-agent-grpc-port={free_port()}",
        f"--runtime-env-agent-port={free_port()}",
        f"--metrics-export-port={free_port()}",
        "--node-ip-address=127.0.0.1",
        "--num-cpus=1",
        "--object-store-memory=100000000",
    ]


@pytest.fixture(scope="module")
def ray_cluster():
    """A head node and a worker node, one CPU each, as separate processes."""
    assert os.environ.get("RAY_AUTH_TOKEN") == RAY_TOKEN, "Ray's token set at import"
    import ray

    temp = Path(tempfile.mkdtemp(prefix="mbray-", dir="/tmp"))
    port = free_port()
    address = f"127.0.0.1:{port}"
    head = start_node(
        ["--head", f"--port={port}", f"--temp-dir={temp}", "--include-dashboard=false",
         *node_ports()],
        temp / "head.log",
    )
    nodes = [head]
    try:
        connect(address, head, temp / "head.log")
        nodes.append(start_node([f"--address={address}", *node_ports()], temp / "worker.log"))
        wait_for(lambda: alive_nodes() >= 2, 180, "the Ray worker node", temp / "worker.log")
        yield address
    finally:
        ray.shutdown()
        for p in reversed(nodes):
            p.send_signal(signal.SIGTERM)
        for p in reversed(nodes):
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
            # Whatever `ray start` left behind: its process group (the node's raylet, GCS,
            # agents and workers), which this test created with the node.
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
        shutil.rmtree(temp, ignore_errors=True)


def connect(address: str, head: subprocess.Popen, log: Path) -> None:
    """Join the head node as this test's driver once it answers (up to 180 s: the machine may
    be busy compiling)."""
    import ray

    deadline = time.monotonic() + 180
    while True:
        if head.poll() is not None:
            pytest.fail(f"the Ray head node exited:\n{log.read_text()[-3000:]}")
        try:
            ray.init(address=address, log_to_driver=False)
            return
        except (ConnectionError, RuntimeError) as e:
            ray.shutdown()
            if time.monotonic() > deadline:
                pytest.fail(f"cannot join the Ray head node: {e}\n{log.read_text()[-3000:]}")
            time.sleep(1.0)


def alive_nodes() -> int:
    import ray

    return sum(1 for n in ray.nodes() if n["Alive"])


def wait_for(ready, seconds: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ready():
            return
        time.sleep(0.5)
    pytest.fail(f"{what} did not come up in {seconds} s:\n{log.read_text()[-3000:]}")


def test_ray_two_node_cluster_matches_the_local_sweep(ray_cluster, tmp_path):
    import ray

    alive = [n for n in ray.nodes() if n["Alive"]]
    assert len(alive) == 2, alive
    local = local_table(tmp_path)
    table, report = mbsim.sweep(
        MODEL, backend="ray", task_size=10, progress=False, report=True, **SWEEP
    )
    assert_same_runs(table, local)
    assert report.tasks == 16 and report.threads_per_task == 1
    nodes = {t["node"] for t in report.task_reports}
    assert len(nodes) == 2, f"both nodes ran tasks: {nodes}"


def test_ray_worker_killed_mid_sweep(ray_cluster, tmp_path):
    """The first finished task kills another task's worker process (SIGKILL): Ray retries
    that task on a new worker, and the table still has every run exactly once."""
    local = local_table(tmp_path)
    killed = kill_on_first_progress(ray_task_process)
    table, report = mbsim.sweep(
        MODEL, backend="ray", task_size=10, progress=killed.callback, report=True, **SWEEP
    )
    assert killed.pids, "a worker process running a task was killed"
    assert not killed.results_after_kill(report), "no result from the dead worker after its death"
    assert_same_runs(table, local)
    print(f"ray: killed worker {sorted(killed.pids)}; {report.tasks} tasks, "
          f"{len(table)} runs, every run once")


def ray_task_process() -> psutil.Process | None:
    """A Ray worker process of this user executing a sweep task (Ray titles it `ray::run_task`)."""
    me = os.getuid()
    for p in psutil.process_iter(["cmdline", "uids"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if p.info["uids"] and p.info["uids"].real == me and cmd.startswith("ray::run_task"):
            return p
    return None


class kill_on_first_progress:
    """A progress callback that, at the first finished task, SIGKILLs the process `find`
    returns (waiting up to 10 s for one to be busy)."""

    def __init__(self, find):
        self.find = find
        self.pids: set[int] = set()
        self.calls = 0
        self.at = float("inf")

    def results_after_kill(self, report) -> list[dict]:
        """Tasks reported by a killed process after it was killed (there must be none)."""
        return [t for t in report.task_reports if t["pid"] in self.pids and t["finished"] > self.at]

    def callback(self, done_runs, total_runs, done_tasks, total_tasks):
        self.calls += 1
        if self.pids or done_tasks >= total_tasks:
            return
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            p = self.find()
            if p is not None:
                self.at = time.time()
                p.send_signal(signal.SIGKILL)
                self.pids.add(p.pid)
                return
            time.sleep(0.02)


@pytest.fixture(scope="module")
def dask_client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None
    )
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def test_dask_local_cluster_matches_the_local_sweep(dask_client, tmp_path):
    local = local_table(tmp_path)
    table, report = mbsim.sweep(
        MODEL, backend="dask", client=dask_client, task_size=10, progress=False, report=True,
        **SWEEP,
    )
    assert_same_runs(table, local)
    assert len(report.workers) == 3, f"three worker processes ran tasks: {report.workers}"


def test_dask_worker_killed_mid_sweep(dask_client, tmp_path):
    """SIGKILL one worker process after the first task: its nanny restarts it, the scheduler
    reassigns its tasks, the table has every run exactly once."""
    local = local_table(tmp_path)
    pids = set(dask_client.run(os.getpid).values())

    def busy_worker():
        for pid in pids:
            try:
                p = psutil.Process(pid)
            except psutil.NoSuchProcess:
                continue
            if p.cpu_percent(interval=0.05) > 20:
                return p
        return None

    killed = kill_on_first_progress(busy_worker)
    table, report = mbsim.sweep(
        MODEL, backend="dask", client=dask_client, task_size=10, progress=killed.callback,
        report=True, **SWEEP,
    )
    assert killed.pids, "a busy worker process was killed"
    assert not killed.results_after_kill(report), "no result from the dead worker after its death"
    assert_same_runs(table, local)
    print(f"dask: killed worker {sorted(killed.pids)}; {report.tasks} tasks, "
          f"{len(table)} runs, every run once")


def test_local_backend_equals_the_cli_sweep(tmp_path):
    local = local_table(tmp_path)
    assert_same_runs(mbsim.sweep(MODEL, progress=False, **SWEEP), local)


def test_unknown_backend_is_an_input_error():
    with pytest.raises(mbsim.InputError, match="unknown backend `spark`"):
        mbsim.sweep(MODEL, backend="spark", **SWEEP)


# Job arrays: `mbsim sweep --shard I/N` per task, then `mbsim sweep-merge`.

CLI_SWEEP = ["sweep", MODEL, "--random", "g=1:400", "--random", "len=0.5:2", "--draws", "160",
             "--seed", "29", "--t-end", "20", "--rtol", "1e-10", "--max-steps", "12000"]


def cli(binary: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True)


def read_csv(path: Path) -> pandas.DataFrame:
    return pandas.read_csv(path, keep_default_na=False, dtype=str)


def test_sweep_merge_of_shards_equals_the_unsharded_sweep(mbsim_bin, tmp_path):
    whole = cli(mbsim_bin, *CLI_SWEEP, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    shards = []
    for i in range(3):
        d = tmp_path / f"shard-{i}"
        p = cli(mbsim_bin, *CLI_SWEEP, "--shard", f"{i}/3", "--out", str(d))
        assert p.returncode == 0, p.stderr
        shards.append(str(d))
    merged = cli(mbsim_bin, "sweep-merge", *shards, "--out", str(tmp_path / "merged"))
    assert merged.returncode == 0, merged.stderr
    assert "160 runs" in merged.stdout
    a = read_csv(tmp_path / "whole" / "sweep.csv").drop(columns=list(TIMING))
    b = read_csv(tmp_path / "merged" / "sweep.csv").drop(columns=list(TIMING))
    assert list(b["run"]) == [str(i) for i in range(160)]
    pandas.testing.assert_frame_equal(a, b)
    mw = json.loads((tmp_path / "whole" / "sweep.json").read_text())
    mm = json.loads((tmp_path / "merged" / "sweep.json").read_text())
    for key in ("model", "axes", "seed", "runs_total", "shard", "shards", "columns"):
        assert mw[key] == mm[key], key

    # A shard missing: the error names it and the command to rerun.
    missing = cli(mbsim_bin, "sweep-merge", shards[0], shards[2], "--out", str(tmp_path / "m2"))
    assert missing.returncode != 0
    assert "53 of 160 runs missing" in missing.stderr, missing.stderr
    assert "--shard 1/3" in missing.stderr, missing.stderr
    # A shard given twice: its runs appear twice.
    twice = cli(mbsim_bin, "sweep-merge", *shards, shards[1], "--out", str(tmp_path / "m3"))
    assert twice.returncode != 0
    assert "shard 1/3 is given twice" in twice.stderr, twice.stderr
    # A shard of another sweep (another seed): the manifests disagree.
    other = tmp_path / "other"
    seed = CLI_SWEEP.index("--seed") + 1
    args = CLI_SWEEP[:seed] + ["30"] + CLI_SWEEP[seed + 1:]
    assert cli(mbsim_bin, *args, "--shard", "1/3", "--out", str(other)).returncode == 0
    mixed = cli(mbsim_bin, "sweep-merge", shards[0], str(other), shards[2], "--out",
                str(tmp_path / "m4"))
    assert mixed.returncode != 0
    assert "differ in seed" in mixed.stderr, mixed.stderr
    assert not (tmp_path / "m2").exists() and not (tmp_path / "m4").exists()


def test_python_entry_point_on_dask_writes_the_cli_s_files(mbsim_bin, tmp_path):
    """`python -m mbsim sweep … --backend dask` (a LocalCluster of its own) writes the
    sweep.csv of `mbsim sweep`, run by run, and a manifest naming the backend."""
    axes = CLI_SWEEP[2:CLI_SWEEP.index("--t-end")]
    out = tmp_path / "py"
    proc = subprocess.run(
        [sys.executable, "-m", "mbsim", "sweep", MODEL, *axes, "--t-end", "20", "--rtol",
         "1e-10", "--option", "max_steps=12000", "--backend", "dask", "--task-size", "40",
         "--out", str(out)],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "160 runs (82 failed)" in proc.stdout, proc.stdout
    whole = cli(mbsim_bin, *CLI_SWEEP, "--out", str(tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    a = read_csv(tmp_path / "whole" / "sweep.csv").drop(columns=list(TIMING))
    b = read_csv(out / "sweep.csv").drop(columns=list(TIMING))
    pandas.testing.assert_frame_equal(a, b)
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["backend"] == "dask" and manifest["tasks"] == 4
    assert manifest["runs_total"] == 160
