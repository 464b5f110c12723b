#!/usr/bin/env python3
"""Runs a command and prints its peak resident set size in MB (ru_maxrss of
the child), after the command's own output.  usage: peak_rss.py CMD ARGS..."""
import resource, subprocess, sys
rc = subprocess.call(sys.argv[1:])
print("peak_rss_mb %.1f" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0))
sys.exit(rc)
