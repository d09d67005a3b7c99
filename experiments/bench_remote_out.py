"""Rows per second written by ``knorri-sim run`` to an S3-compatible store, against a local folder.

    python experiments/bench_remote_out.py --hands 400000 --chunk-hands 20000 --workers 2

Starts a moto S3 server on 127.0.0.1 (``moto[server]`` and ``s3fs``, the test extra), then
times two fresh ``knorri-sim run`` processes from start to exit on the same config: one with
``--out s3://bench/run`` (its workers put their own shards on the server) and one into a
local temporary folder (the command's process writes every shard). Prints each one's wall
time, rows per second and the CPU seconds of the command and its workers (from
``/usr/bin/time``-style ``resource`` accounting of the children). The moto server runs in
this process, in Python, so the S3 figure is a floor for a real store, not its speed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed_run(out: str, args: argparse.Namespace, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds (this command and its workers) of one ``knorri-sim run`` into ``out``."""
    command = [sys.executable, "-m", "experiments.cli", "run", "--seats", "4", "--agents", args.agents,
               "--assign", "fixed", "--hands", str(args.hands), "--chunk-hands", str(args.chunk_hands),
               "--workers", str(args.workers), "--no-progress", "--out", out]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    """Parse the options, start the server, time both runs and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400_000)
    parser.add_argument("--chunk-hands", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--agents", default="random")
    args = parser.parse_args()
    import logging

    from moto.server import ThreadedMotoServer
    from s3fs import S3FileSystem

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
           "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL": endpoint, "FSSPEC_S3_ENDPOINT_URL": endpoint}
    S3FileSystem(key="bench", secret="bench", endpoint_url=endpoint).mkdir("bench")
    with tempfile.TemporaryDirectory() as folder:
        timed_run(str(Path(folder) / "warm"), argparse.Namespace(**{**vars(args), "hands": 8}), env)  # compile
        for name, out in (("local folder", str(Path(folder) / "run")), ("S3 (moto)", "s3://bench/run")):
            wall, cpu = timed_run(out, args, env)
            print(f"{name:>12}: {args.hands:,} rows with {args.workers} workers in {wall:.1f} s wall "
                  f"({args.hands / wall:,.0f} rows/s), {cpu:.1f} s CPU in the command and its workers")
    server.stop()


if __name__ == "__main__":
    main()
