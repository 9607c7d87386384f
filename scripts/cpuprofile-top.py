#!/usr/bin/env python3
"""Summarize a Chromium .cpuprofile (as `go run ./e2e/bench -page-profile`
writes): self and total time per function, largest first.

usage: scripts/cpuprofile-top.py FILE [N]
"""
import collections
import json
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    prof = json.load(open(path))
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {}
    for n in prof["nodes"]:
        for c in n.get("children", []):
            parent[c] = n["id"]
    # Each sample's time is the delta to the next one.
    deltas = prof.get("timeDeltas", [])
    samples = prof.get("samples", [])
    self_us = collections.Counter()
    total_us = collections.Counter()
    for i, sid in enumerate(samples):
        dt = deltas[i + 1] if i + 1 < len(deltas) else 0
        fr = nodes[sid]["callFrame"]
        key = lambda f: "%s %s:%d" % (f["functionName"] or "(anonymous)", f["url"].rsplit("/", 1)[-1], f["lineNumber"] + 1)
        self_us[key(fr)] += dt
        seen = set()
        nid = sid
        while nid is not None:
            k = key(nodes[nid]["callFrame"])
            if k not in seen:
                total_us[k] += dt
                seen.add(k)
            nid = parent.get(nid)
    whole = sum(self_us.values()) or 1
    print("sampled %.1f ms" % (whole / 1000))
    print("%8s %6s %8s  %s" % ("self ms", "self%", "total ms", "function"))
    for k, v in self_us.most_common(top):
        print("%8.1f %5.1f%% %8.1f  %s" % (v / 1000, 100 * v / whole, total_us[k] / 1000, k))


if __name__ == "__main__":
    main()
