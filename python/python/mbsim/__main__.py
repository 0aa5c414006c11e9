"""``python -m mbsim sweep …``: ``mbsim sweep`` on a cluster, from the command line.

The axes and options are written as for the Rust command (``--grid NAME=FROM:TO:COUNT[:log]``,
``--random NAME=FROM:TO[:log]``, ``--draws``, ``--seed``, ``--column``, ``--param NAME=VALUE``,
``--t-end``, ``--rtol``, ``--method``, any other option of ``Model.simulate`` as
``--option KEY=VALUE``), plus the backend: ``--backend local|ray|dask``, ``--address`` (the
Ray cluster, or the Dask scheduler; without it Ray starts or joins the local one, Dask starts a
LocalCluster), ``--task-size``, ``--threads``, ``--retries``. Writes sweep.csv and sweep.json
into ``--out`` as ``mbsim sweep`` does (same rows; the manifest also names the backend).

    python -m mbsim sweep andrews --random mom=0.03:0.04 --draws 100000 --seed 7 \\
        --backend ray --address auto --out out/study
"""

from __future__ import annotations

import argparse
import sys

from . import sweep
from .errors import MbsimError


def _value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _pairs(items: list[str], what: str) -> dict:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"python -m mbsim: {what} `{item}`: expected KEY=VALUE")
        out[key.strip().replace("-", "_")] = _value(value.strip())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mbsim", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("sweep", help="a sweep on this machine, a Ray or a Dask cluster")
    s.add_argument("model")
    s.add_argument("--grid", action="append", default=[], metavar="NAME=FROM:TO:COUNT[:log]")
    s.add_argument("--random", action="append", default=[], metavar="NAME=FROM:TO[:log]")
    s.add_argument("--draws", type=int, default=0)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--column", action="append", default=[], metavar="SPEC")
    s.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    s.add_argument("--t-end", type=float)
    s.add_argument("--rtol", type=float)
    s.add_argument("--method")
    s.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("--backend", choices=["local", "ray", "dask"], default="local")
    s.add_argument("--address")
    s.add_argument("--task-size", type=int)
    s.add_argument("--threads", type=int)
    s.add_argument("--retries", type=int, default=3)
    s.add_argument("--out", required=True)
    a = ap.parse_args(argv)
    options = _pairs(a.option, "--option")
    if a.param:
        options["params"] = {k: float(v) for k, v in _pairs(a.param, "--param").items()}
    for key in ("t_end", "rtol", "method"):
        if getattr(a, key) is not None:
            options[key] = getattr(a, key)
    try:
        table, report = sweep(
            a.model, grid=a.grid, random=a.random, draws=a.draws, seed=a.seed,
            columns=a.column, backend=a.backend, task_size=a.task_size, threads=a.threads,
            address=a.address, retries=a.retries, report=True, out=a.out, **options,
        )
    except MbsimError as e:
        print(f"python -m mbsim: error: {e}", file=sys.stderr)
        return 1
    failed = int(sum(1 for s in table["status"] if s == "failed"))
    print(
        f"{report.runs} runs ({failed} failed) of `{a.model}` on {a.backend}: {report.tasks} "
        f"task(s), {len(report.workers)} worker process(es), {report.wall_seconds:.3f} s wall, "
        f"{report.runs / max(report.wall_seconds, 1e-9):.1f} runs/s\nwrote {a.out}/sweep.csv"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
