"""Structured Streaming with format ``pqkit``: PQDS/1 datasets as source and sink.

Every test stops or kills a query and restarts it from its checkpoint, then checks
that each appended row arrived exactly once. They run on a classic and on a Spark
Connect session, except the kill -9 test, whose query runs in a classic session of a
process of its own.
"""
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import pqkit.dataset as pds
import pqkit.spark

JOB = os.path.join(os.path.dirname(__file__), "stream_job.py")


@pytest.fixture
def streams(any_spark):
    """The classic and the Spark Connect session, format pqkit registered."""
    pqkit.spark.register(any_spark)
    return any_spark


def _ids(root):
    return sorted(pds.open(str(root)).read(columns=["id"]).to_pydict()["id"])


def _append(root, start, n, mode="append"):
    """One version adding ids start..start+n-1 (in one file)."""
    return pds.write(str(root), {"id": list(range(start, start + n)),
                                 "s": [f"s{i}" for i in range(start, start + n)]}, mode=mode)


def _latest(root):
    try:
        return pds.latest_version(str(root))
    except pds.DatasetNotFound:
        return -1


def _wait(query, batches, timeout=180):
    """Until ``query`` has finished ``batches`` micro-batches (or failed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if query.exception() is not None:
            raise query.exception()
        done = [p["batchId"] for p in query.recentProgress]
        if done and max(done) + 1 >= batches:
            return
        time.sleep(0.2)
    raise AssertionError(f"no {batches} micro-batches in {timeout} s")


def _log_entries(checkpoint, log):
    """The last batch id in one of the checkpoint's logs (-1: none)."""
    names = os.listdir(os.path.join(checkpoint, log)) if os.path.isdir(
        os.path.join(checkpoint, log)) else []
    return max((int(n) for n in names if n.isdigit()), default=-1)


def _forget_commit(checkpoint, batch=None):
    """Remove batch ``batch``'s entry (default the last) from the query's commit log: a
    crash after the sink committed the batch, before Spark logged it as done."""
    commits = os.path.join(checkpoint, "commits")
    if batch is None:
        batch = _log_entries(checkpoint, "commits")
    for name in (str(batch), f".{batch}.crc"):
        if os.path.exists(os.path.join(commits, name)):
            os.remove(os.path.join(commits, name))
    return batch


# --- sink ------------------------------------------------------------------------------------
def test_sink_writes_each_row_once_across_a_restart_and_a_replayed_batch(streams, tmp_path):
    spark = streams
    out, checkpoint = str(tmp_path / "out"), str(tmp_path / "checkpoint")

    def start(**trigger):
        rows = (spark.readStream.format("rate-micro-batch").option("rowsPerBatch", 7).load()
                .selectExpr("value AS id", "CAST(value % 3 AS INT) AS p"))
        return (rows.writeStream.format("pqkit").option("checkpointLocation", checkpoint)
                .option("partition_by", "p").trigger(**trigger).start(out))

    for _ in range(3):                  # three batches, each query stopping cleanly
        start(once=True).awaitTermination()
    assert _forget_commit(checkpoint) == 2        # so the restarted query runs it again
    versions_before = pds.latest_version(out)
    query = start(processingTime="0 seconds")
    _wait(query, 5)
    query.stop()
    assert min(p["batchId"] for p in query.recentProgress) == 2     # replayed
    ids = _ids(out)
    assert ids == list(range(len(ids))) and len(ids) >= 7 * 5
    history = pds.open(out).versions()
    run_ids = [v["run_id"] for v in history]
    assert len(set(run_ids)) == len(run_ids)
    assert [int(r.rpartition(":")[2]) for r in run_ids] == list(range(len(run_ids)))
    assert pds.latest_version(out) > versions_before
    assert pds.open(out).partition_by == ["p"]


def test_sink_complete_mode_replaces_the_rows(streams, tmp_path):
    spark = streams
    source, out = tmp_path / "src", str(tmp_path / "out")
    _append(source, 0, 10, mode="create")
    counts = (spark.readStream.format("pqkit").load(str(source))
              .selectExpr("id % 2 AS parity").groupBy("parity").count())
    query = (counts.writeStream.format("pqkit").outputMode("complete")
             .option("checkpointLocation", str(tmp_path / "ck")).start(out))
    query.processAllAvailable()
    _append(source, 10, 5)
    query.processAllAvailable()
    query.stop()
    rows = pds.open(out).read().to_pydict()
    assert sorted(zip(rows["parity"], rows["count"])) == [(0, 8), (1, 7)]


# --- source ----------------------------------------------------------------------------------
def test_source_reads_appends_made_while_it_runs_once_across_a_restart(streams, tmp_path):
    spark = streams
    source, out, checkpoint = tmp_path / "src", str(tmp_path / "out"), str(tmp_path / "ck")
    _append(source, 0, 5, mode="create")
    _append(source, 5, 5)

    def start(trigger):
        rows = spark.readStream.format("pqkit").option("maxFilesPerTrigger", 2).load(str(source))
        return (rows.writeStream.format("parquet").option("checkpointLocation", checkpoint)
                .trigger(**trigger).start(out))

    query = start({"processingTime": "0 seconds"})
    for i in range(2, 6):                   # appended while the query runs
        _append(source, 5 * i, 5)
        time.sleep(0.5)
    _wait(query, 2)
    query.stop()
    for i in range(6, 9):                   # appended while it is stopped
        _append(source, 5 * i, 5)
    query = start({"availableNow": True})
    query.awaitTermination()
    got = sorted(r.id for r in spark.read.parquet(out).select("id").collect())
    assert got == list(range(45))
    assert all(p.numInputRows <= 10 for p in query.recentProgress)


def test_source_limits_each_batch_and_replans_a_replayed_one(streams, tmp_path):
    spark = streams
    source, out, checkpoint = tmp_path / "src", str(tmp_path / "out"), str(tmp_path / "ck")
    pds.write(str(source), {"id": list(range(12)), "p": [i % 4 for i in range(12)]},
              mode="create", partition_by=["p"])                       # 4 files

    def run():
        rows = spark.readStream.format("pqkit").option("maxFilesPerTrigger", 3).load(str(source))
        query = (rows.writeStream.format("pqkit").option("checkpointLocation", checkpoint)
                 .trigger(availableNow=True).start(out))
        query.awaitTermination()
        return query

    query = run()
    assert [p.numInputRows for p in query.recentProgress if p.numInputRows] == [9, 3]
    _forget_commit(checkpoint)
    pds.write(str(source), {"id": [12, 13], "p": [0, 1]}, mode="append")
    run()
    assert _ids(out) == list(range(14))


def test_source_fails_clearly_on_a_schema_change_and_a_delete(streams, tmp_path):
    """A schema change fails the query, which reads on from there once restarted; a
    delete fails it unless skipChangeCommits."""
    spark = streams
    source = tmp_path / "src"
    _append(source, 0, 3, mode="create")

    def start(name, **options):
        rows = spark.readStream.format("pqkit").options(**options).load(str(source))
        return (rows.writeStream.format("noop")
                .option("checkpointLocation", str(tmp_path / name)).start())

    query = start("a")
    query.processAllAvailable()
    pds.write(str(source), {"id": [9], "s": ["x"], "extra": [1.5]}, mode="append",
              evolve_schema=True)                  # version 1, while the query runs
    with pytest.raises(Exception, match="changed at version 1: the stream reads id int64, "
                                        "s string, version 1 has .*extra .*restart the query"):
        query.awaitTermination(120)
    query = start("a")                             # restarted: reads the new schema
    query.processAllAvailable()
    assert query.exception() is None
    assert sum(p.numInputRows for p in query.recentProgress) == 1
    query.stop()
    pds.delete(str(source), [("id", "==", 0)])     # version 2
    query = start("b", startingVersion="2")
    with pytest.raises(Exception, match="version 2 .*removes or rewrites .*skipChangeCommits"):
        query.awaitTermination(120)
    query = start("c", startingVersion="2", skipChangeCommits="true")
    query.processAllAvailable()
    assert query.exception() is None
    query.stop()


# --- kill -9 ---------------------------------------------------------------------------------
def _job(source, target, checkpoint, how):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.Popen([sys.executable, JOB, str(source), str(target), str(checkpoint),
                             how], env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


VERSIONS = 8           # the source's versions, 4 rows each


def _appender(source, first, stop):
    """Append versions first.. to ``source`` every 0.3 s until ``stop`` is set or all are
    there; returns the thread and a list holding the next version to append."""
    nxt = [first]

    def run():
        while nxt[0] < VERSIONS and not stop.is_set():
            _append(source, 4 * nxt[0], 4)
            nxt[0] += 1
            stop.wait(0.3)
    thread = threading.Thread(target=run)
    thread.start()
    return thread, nxt


def test_a_killed_query_restarts_from_its_checkpoint_with_every_row_once(tmp_path):
    source, target, checkpoint = tmp_path / "src", tmp_path / "out", tmp_path / "ck"
    _append(source, 0, 4, mode="create")
    job = _job(source, target, checkpoint, "run")
    stop = threading.Event()
    appender, nxt = _appender(source, 1, stop)
    versions = target / "_pqkit" / "versions"
    try:
        # Kill the query (its JVM and Python workers too) the moment its sink has
        # committed a third version: Spark may not have logged that batch as done yet.
        deadline = time.monotonic() + 240
        while not (versions.is_dir() and len(os.listdir(versions)) >= 3):
            assert job.poll() is None, job.stderr.read().decode()[-3000:]
            assert time.monotonic() < deadline, "no third version in 240 s"
            time.sleep(0.002)
    finally:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
        stop.set()
        appender.join()
    # If the kill fell just after that moment, go back to it: remove the batch's entry
    # from the commit log (unless Spark has already planned the next batch).
    committed = max(int(v["run_id"].rpartition(":")[2]) for v in
                    pds.open(str(target)).versions())
    if _log_entries(checkpoint, "commits") == _log_entries(checkpoint, "offsets") == committed:
        _forget_commit(str(checkpoint), committed)
    for i in range(nxt[0], VERSIONS):
        _append(source, 4 * i, 4)
    drain = _job(source, target, checkpoint, "drain")
    _, err = drain.communicate(timeout=300)
    assert drain.returncode == 0, err.decode()[-3000:]
    assert _ids(target) == list(range(4 * VERSIONS))
    run_ids = [v["run_id"] for v in pds.open(str(target)).versions()]
    assert len(set(run_ids)) == len(run_ids)
