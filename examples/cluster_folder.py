"""Fingerprint a folder and print its near-duplicate families: python cluster_folder.py FOLDER [K]"""

import sys

import ditto_tui as dt

folder, k = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3
index = dt.Index(k)
for item in dt.fingerprint_folder(folder):
    if isinstance(item, dt.Skipped):
        print(f"skipped {item.id}: {item.reason}", file=sys.stderr)
    else:
        index.add(item.id, item.fingerprint)
for family in index.clusters():
    print(f"{family.size} members within {family.diameter} bits: {', '.join(family.members)}")
