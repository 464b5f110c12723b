# A standard-library workload: json round-trips for SECONDS seconds (or
# forever with 0), checking every result; PROGRESS holds the number of
# rounds done, rewritten in place (one write) after each round.
import json
import os
import sys
import time


def document(i):
    return {"id": i, "name": "item%d" % i, "tags": ["a", "b", str(i)],
            "nested": {"x": i * 0.5, "y": [i, i + 1]}}


def round_trip(i):
    text = json.dumps(document(i), sort_keys=True)
    back = json.loads(text)
    if back != document(i):
        raise SystemExit("round trip %d changed the document" % i)
    return len(text)


def main(seconds, progress):
    end = time.monotonic() + seconds
    rounds = 0
    total = 0
    fd = os.open(progress, os.O_WRONLY | os.O_CREAT) if progress else -1
    while seconds == 0 or time.monotonic() < end:
        total += round_trip(rounds)
        rounds += 1
        if fd >= 0:
            os.pwrite(fd, b"%20d" % rounds, 0)
    print("json_loop ok: %d rounds" % rounds)


main(float(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else None)
