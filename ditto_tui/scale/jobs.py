"""The Spark jobs as a standalone program, for spark-submit and ``python -m``.

    python -m ditto_tui.scale.jobs run /data/corpus -o /data/results -k 4 --master local[2]
    spark-submit --master yarn ditto_tui/scale/jobs.py fingerprint hdfs:///corpus -o hdfs:///out

Same subcommands and flags as ``ditto-tui spark``; under spark-submit the master comes
from spark-submit unless ``--master`` is given. The executors need ditto-tui installed
(or shipped with ``--py-files``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ditto_tui.scale.cli import add_spark_commands, run_spark


def build_parser() -> argparse.ArgumentParser:
    """The standalone parser: ``fingerprint``, ``pairs``, ``families``, ``run``."""
    parser = argparse.ArgumentParser(
        prog="ditto-tui-spark", description="ditto-tui's Spark jobs (see 'ditto-tui spark')."
    )
    add_spark_commands(parser.add_subparsers(dest="spark_command", metavar="JOB", required=True))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``) and run the job; returns the exit code."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    return run_spark(args)


if __name__ == "__main__":
    raise SystemExit(main())
