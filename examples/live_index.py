"""Keep a near-duplicate index of a folder current while its files change.

    python live_index.py FOLDER [SECONDS]

Scans FOLDER once, then watches it (for SECONDS, or until Ctrl-C) and, for every
document added or changed, prints its near-duplicates. The corpus session does the
reading, caching and watching; this program only keeps its own Index in step with the
change batches the session reports.
"""

from __future__ import annotations

import sys
import threading
import time

import ditto_tui as dt

K = 3


def main() -> int:
    folder = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else None
    pipeline = dt.ditto()
    index = dt.Index(K, pipeline)
    lock = threading.Lock()  # the Index is not thread-safe; batches arrive on the watcher thread

    def apply(batch: dt.ChangeBatch) -> None:
        with lock:
            for id_ in batch.removed:
                index.remove(id_)
                print(f"removed {id_}", flush=True)
            updated = {**batch.added, **batch.changed}
            index.add_many(list(updated), list(updated.values()))
            if batch.rescan or len(updated) > 20:
                print(f"{len(updated)} documents updated, {len(index)} in the index", flush=True)
                return
            for id_, fp in sorted(updated.items()):
                near = [f"{m.id} ({m.distance} bits)" for m in index.near(fp) if m.id != id_]
                print(f"{id_}: near {', '.join(near) if near else 'nothing'}", flush=True)

    with dt.CorpusSession(folder, pipeline) as session:
        first = session.scan()
        with lock:
            index.add_many(list(first.added), list(first.added.values()))
        families = index.clusters()
        print(f"{len(index)} documents, {len(families)} families at k={K}", flush=True)
        for skip in session.skipped:
            print(f"skipped {skip.id}: {skip.reason}", flush=True)
        session.start_watching(apply)
        print("watching", flush=True)
        try:
            if seconds is None:
                while True:
                    time.sleep(3600)
            time.sleep(seconds)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
