"""A run written to an S3-compatible store (a moto server on loopback): the workers put their own shards, a run
killed mid-way resumes, and the rows equal a local run's."""

from __future__ import annotations

import logging
import os
import signal
import time

import pandas as pd
import pytest
from test_runner_resume import knorri_sim

from experiments.runner.storage import RunFolder

moto_server = pytest.importorskip("moto.server")
s3fs = pytest.importorskip("s3fs")

OPTIONS = ["--seats", "3", "--agents", "runner_fixtures.agents:PythonRandom", "--hands", "90", "--assign", "fixed",
           "--chunk-hands", "6", "--seed", "21", "--log-actions", "--no-progress"]


@pytest.fixture(scope="module")
def s3():
    """A moto S3 server on 127.0.0.1 with one bucket, and the environment that points clients at it."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
           "AWS_ENDPOINT_URL": endpoint, "FSSPEC_S3_ENDPOINT_URL": endpoint}
    fs = s3fs.S3FileSystem(key="testing", secret="testing", endpoint_url=endpoint, skip_instance_cache=True)
    fs.mkdir("runs")
    yield env, fs
    server.stop()


def read(location, table, keys):
    """A table of a run folder, local or on the store, through the runner's reader (never pyarrow over fsspec)."""
    frame = RunFolder(location).read_table(table).to_pandas()
    return frame.sort_values(keys).reset_index(drop=True)


def test_a_run_on_s3_killed_midway_resumes_to_the_local_runs_rows(tmp_path, s3, monkeypatch):
    env, fs = s3
    for name, value in env.items():  # this process reads the store too
        monkeypatch.setenv(name, value)
    url = "s3://runs/first"
    process = knorri_sim("run", *OPTIONS, "--workers", "2", "--out", url, env_extra=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while len(fs.ls("runs/first/hands", detail=False, refresh=True) if fs.exists("runs/first/hands") else []) < 3:
        assert process.poll() is None, process.stderr.read()
        assert time.monotonic() < deadline, "no shard appeared"
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    process.stdout.close()
    process.stderr.close()
    assert len(fs.ls("runs/first/hands", detail=False, refresh=True)) < 15

    resumed = knorri_sim("run", "--resume", url, "--workers", "2", "--no-progress", env_extra=env)
    stdout, stderr = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, stderr  # once in about ten, an abort as it exited (see RunFolder.read_table)
    assert "s3://runs/first/hands" in stdout

    local = tmp_path / "local"
    whole = knorri_sim("run", *OPTIONS, "--workers", "1", "--out", str(local))
    _, stderr = whole.communicate(timeout=300)
    assert whole.returncode == 0, stderr
    fs.invalidate_cache()
    for table, keys in (("hands", ["hand_index"]), ("actions", ["hand_index", "step"])):
        pd.testing.assert_frame_equal(read(url, table, keys), read(local, table, keys))
    assert list(read(url, "hands", ["hand_index"]).hand_index) == list(range(90))
    assert not fs.exists("runs/first/journal") and not fs.exists("runs/first/.lock")
