"""The same extraction on Apache Spark, for dumps beyond one machine.

Spark reads the dump as text (bz2 is splittable, so every executor decompresses its own
part), numbers the lines exactly as the local reader does, and each partition runs
``parse_to_arrow`` on runs of consecutive lines: the very code of the local loader, so the
rows are the same. Executors write each table as Parquet parts under ``output`` (a local
path in local mode; on a cluster a path or ``s3://`` / ``hdfs://`` URI that every executor
and the driver can reach), and return only counters. ``LoadStage`` then lands the parts in
the project's tables with the same bookkeeping as a local load (file status, duplicates,
last load wins); a given ``spark_output`` keeps them, each load in a folder of its own
(``load_dir``).

Executors need convkgyarn installed in the Python they run (``spark.pyspark.python``); in
local mode that is this interpreter.
"""

from __future__ import annotations

import logging
import os
import shutil
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from convkgyarn.errors import UserError
from convkgyarn.kg.extract import TABLES, Keep, parse_to_arrow

log = logging.getLogger(__name__)
LINES_PER_CHUNK = 5000
LOG4J2 = """rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = spark: %p %c{1}: %m%n
"""


@dataclass
class SparkResult:
    """What the executors parsed: each chunk's counters (``lines``, ``bytes``: uncompressed,
    newlines included, ``rows`` per table, ``skipped``, ``max_modified``), and where each
    table's Parquet parts are."""

    output: str
    chunks: list[dict] = field(default_factory=list)
    parse_seconds: float = 0.0  # the Spark job (parse + Parquet parts), JVM start excluded

    def tables(self) -> list[str]:
        """The tables some chunk wrote rows to."""
        return sorted({t for chunk in self.chunks for t, n in chunk["rows"].items() if n})

    def parts(self, table: str) -> str:
        return f"{self.output.rstrip('/')}/{table}/*.parquet"


def load_dir(spark_output: str, file_id: int) -> str:
    """One load's folder under a given ``--spark-output`` (a path or URI): new for every
    load, so that two loads never read or overwrite each other's parts (a reused folder
    used to land an earlier load's parts again)."""
    return f"{spark_output.rstrip('/')}/load-{file_id}-{uuid.uuid4().hex[:8]}"


def session(master: str | None):
    """A Spark session: ``master`` as given, else local mode on every core, bound to
    127.0.0.1 with no UI."""
    try:
        with warnings.catch_warnings():  # PySpark's note about pandas versions: not used here
            warnings.simplefilter("ignore", FutureWarning)
            from pyspark.sql import SparkSession
    except ImportError:
        raise UserError("--engine spark needs PySpark: pip install 'convkgyarn[spark]' "
                        "(and Java 17)") from None
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    quiet = Path(tempfile.gettempdir()) / "convkgyarn-spark-log4j2.properties"
    if not quiet.exists():  # Spark's own start-up chatter would bury our one-line messages
        quiet.write_text(LOG4J2)
    builder = (SparkSession.builder.appName("convkgyarn kg load")
               .master(master or "local[*]")
               .config("spark.pyspark.python", os.environ["PYSPARK_PYTHON"])
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.python.worker.reuse", "true")
               .config("spark.driver.extraJavaOptions",
                       f"-Dlog4j2.configurationFile=file:{quiet}"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("ERROR")
        return spark
    except Exception as exc:  # noqa: BLE001 - no JVM, bad master URL...
        raise UserError(f"cannot start Spark ({master or 'local[*]'}): "
                        f"{str(exc).splitlines()[0][:200]}") from None


def extract(path: Path, file_id: int, output: str, keep: Keep | None,
            master: str | None = None) -> SparkResult:
    """Parse ``path`` on Spark into Parquet parts under ``output``; returns the counters."""
    from convkgyarn.kg.reader import layout

    if layout(path) != "lines":
        raise UserError(f"{path}: --engine spark reads line-per-entity dumps (the dump array "
                        "or one entity per line); this file is one JSON document: load it "
                        "with the local engine")
    spark = session(master)
    name = str(path)  # as the local loader names it in load_rejects
    out = output.rstrip("/")
    # bytes, not text: a line that is not UTF-8 is rejected by the parser, as locally
    sc = spark.sparkContext
    numbered = sc.textFile(str(path.resolve()), minPartitions=2 * sc.defaultParallelism,
                           use_unicode=False).zipWithIndex()

    def run(index: int, rows: Iterator[tuple[bytes, int]]) -> Iterator[dict]:
        yield from _parse_partition(index, rows, file_id, name, out, keep)

    t0 = time.perf_counter()
    chunks = numbered.mapPartitionsWithIndex(run).collect()
    return SparkResult(output=out, chunks=chunks, parse_seconds=time.perf_counter() - t0)


def _parse_partition(index: int, rows: Iterator[tuple[bytes, int]], file_id: int, name: str,
                     out: str, keep: Keep | None) -> Iterator[dict]:
    """Runs of consecutive lines through ``parse_to_arrow``; each run's tables to Parquet."""
    import pyarrow.parquet as pq
    from pyarrow import fs

    filesystem, root = fs.FileSystem.from_uri(out if "://" in out else
                                              "file://" + os.path.abspath(out))
    lines: list[bytes] = []
    first = 0
    chunk = 0

    def flush() -> dict:
        nonlocal lines, chunk
        tables, batch = parse_to_arrow(lines, first + 1, file_id, name, (), keep)
        for table, data in tables.items():
            filesystem.create_dir(f"{root}/{table}", recursive=True)
            pq.write_table(data, f"{root}/{table}/part-{index:05d}-{chunk:05d}.parquet",
                           filesystem=filesystem)
        chunk += 1
        nbytes = sum(len(line) + 1 for line in lines)
        lines = []
        return {"lines": batch.lines, "bytes": nbytes,
                "rows": {t: tables[t].num_rows if t in tables else 0 for t in TABLES},
                "skipped": batch.skipped, "max_modified": batch.max_modified}

    for line, line_index in rows:
        if not lines:
            first = line_index
        lines.append(bytes(line))
        if len(lines) >= LINES_PER_CHUNK:
            yield flush()
    if lines:
        yield flush()


def scratch_dir(work_dir: Path, file_id: int) -> str:
    """A fresh local directory for one load's Parquet parts."""
    path = work_dir / f".spark-load-{file_id}-{uuid.uuid4().hex[:8]}"
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


def remove(output: str) -> None:
    if "://" not in output:
        shutil.rmtree(output, ignore_errors=True)


__all__ = ["SparkResult", "extract", "remove", "scratch_dir", "session"]
