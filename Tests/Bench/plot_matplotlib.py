#!/usr/bin/env python3
"""The contenders of bench_plot.sh: the same points drawn with matplotlib.

usage: plot_matplotlib.py scatter|per-point POINTS N OUT.png

POINTS holds BenchPlotSession's records (x, y float64; category, class
uint8).  scatter: one scatter call per category and class, with the seed's
markers (squares hard, circles soft, 5 points code, 3 data, whitened data
and soft, open).  per-point: the seed's GenerateGraph, one ax.plot call per
point, for the first N points.  Both draw a 16 x 9 inch figure at 80 dpi.
"""
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.colors as colors  # noqa: E402
import matplotlib.pyplot as pyplot  # noqa: E402
import numpy  # noqa: E402

mode, path, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
rec = numpy.dtype([("x", "<f8"), ("y", "<f8"), ("cat", "u1"), ("cls", "u1")])
pts = numpy.fromfile(path, dtype=rec, count=n)
pref = ["red", "blue", "green", "orange", "magenta", "brown"]


def whiten(color, f):
    return tuple(1 - (1 - c) * (1 - f) for c in colors.to_rgb(color))


# class: 0 soft data, 1 hard data, 2 soft code, 3 hard code (PLOT_*)
style = {0: ("o", 3, 1 - 0.5 * 0.7), 1: ("s", 3, 0.5), 2: ("o", 5, 0.3), 3: ("s", 5, 0.0)}
fig = pyplot.figure(figsize=(16, 9), dpi=80)
ax = fig.add_axes([0.1, 0.2, 0.75, 0.7])
for cat in range(4):
    for cls in range(4):
        marker, size, f = style[cls]
        color = whiten(pref[cat], f)
        sel = pts[(pts["cat"] == cat) & (pts["cls"] == cls)]
        if mode == "scatter":
            ax.scatter(sel["x"], sel["y"], s=size * size, marker=marker,
                       facecolors="none", edgecolors=[color], linewidths=0.5)
        else:
            for x, y in zip(sel["x"], sel["y"]):
                ax.plot(x, y, markeredgecolor=color, markeredgewidth=0.5,
                        marker=marker, markersize=size, markerfacecolor="None")
fig.savefig(out, dpi=80)
