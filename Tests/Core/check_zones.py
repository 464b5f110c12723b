#!/usr/bin/env python3
"""check_zones.py SOURCE_DIR [BUILD_DIR]

Checks that references between the rooms of the tree point one way, down
the data flow (docs/tree.md draws it):

    Cli/  ->  Outputs/<Output>/, Live/  ->  Host/  ->  Readers/TraceFormats
      ->  Readers/Decoders/  ->  Readers/Import/  ->  Readers/Text/
      ->  Kernel/, TraceStore/  ->  Rtl/
    Sqlite3Ext/, DuckDbExt/  ->  Guard/, SourceText/  ->  Kernel/, TraceStore/
      ->  Rtl/

Two kinds of reference are read:

  includes  every #include line of every .c and .h file (SOURCE_DIR);
  symbols   with BUILD_DIR, every object file CMake built from a source of
            the tree (BUILD_DIR/**/CMakeFiles/<target>.dir/<source>.o):
            each undefined symbol that another of the tree's objects
            defines is a reference from the first's source to the
            second's.  This catches what an #include does not show: a
            table of function pointers naming a routine of a higher room,
            an extern declared by hand, a call through a prototype
            written in the caller.

The rules (each violation printed as PLACE: rule N: why):

  1. A room references only itself and the rooms below it (ROOMS: a lower
     level), never a room beside it (two outputs, Live and Outputs,
     Kernel and TraceStore), never one above it.
  2. The core (Rtl/, TraceStore/, Kernel/, Readers/) references nothing
     hosted, and reaches the platform back ends (Rtl/<Platform>/) only
     through PRTL; the hosted edges call a back end's InitializeRtl.
  3. Outside Sqlite3Ext/ only its public header, Sqlite3Ext/tracestore.h,
     is included.
  4. The core includes only the compiler's freestanding headers (one
     exception, explained in that file: Rtl/RtlMemory.c includes xxhash.h
     and, before it, stdlib.h and string.h).  Platform headers are for
     Rtl/<Platform>/.

A quoted include is resolved as the compiler does here: a path starting
with a top-level folder of ROOMS is root-relative, anything else is
relative to the including file.  Tests/ is not a room (tests may reach
anything).  Exit status: 0 if every rule holds, 1 if not, 2 on bad usage.
"""
import os
import re
import subprocess
import sys

# Rooms, most specific prefix first: (prefix, name, level, core).  A
# reference from room A to room B is allowed when B is A, or B's level is
# lower than A's (rule 1).
ROOMS = [
    ("Rtl/Linux/", "Rtl/<Platform>", 0, True),
    ("Rtl/Windows/", "Rtl/<Platform>", 0, True),
    ("Rtl/", "Rtl", 0, True),
    ("TraceStore/", "TraceStore", 1, True),
    ("Kernel/", "Kernel", 1, True),
    ("Readers/Text/", "Readers/Text", 2, True),
    ("Readers/Import/", "Readers/Import", 3, True),
    ("Readers/Symbols/", "Readers/Symbols", 3, True),
    ("Readers/Decoders/", "Readers/Decoders", 4, True),
    ("Readers/", "Readers", 5, True),
    ("Sqlite3Ext/", "Sqlite3Ext", 2, False),
    ("DuckDbExt/", "DuckDbExt", 2, False),
    ("Guard/", "Guard", 1.5, False),
    ("SourceText/", "SourceText", 1.5, False),
    ("Host/", "Host", 6, False),
    ("Live/", "Live", 7, False),
    ("Outputs/Export/", "Outputs/Export", 7, False),
    ("Outputs/Plot/", "Outputs/Plot", 7, False),
    ("Outputs/Push/", "Outputs/Push", 7, False),
    ("Outputs/Top/", "Outputs/Top", 7, False),
    ("Outputs/", "Outputs", 6.5, False),
    ("Cli/", "Cli", 8, False),
]
TOP = sorted({p.split("/")[0] for p, _, _, _ in ROOMS})

# Sqlite3Ext/ and DuckDbExt/ are hosted but sit beside the readers: they
# reach only the read guard and the source-line reader they share, the
# store, the kernel's tables and the Rtl.
SQLITE_REACHES = {"Rtl", "Rtl/<Platform>", "TraceStore", "Kernel", "Guard",
                  "SourceText"}

FREESTANDING = {"stddef.h", "stdint.h", "stdarg.h", "stdbool.h", "stdalign.h",
                "stdnoreturn.h", "float.h", "limits.h", "iso646.h"}
EXCEPTED = {("Rtl/RtlMemory.c", "stdlib.h"), ("Rtl/RtlMemory.c", "string.h"),
            ("Rtl/RtlMemory.c", "xxhash.h")}


def room(path):
    for prefix, name, level, core in ROOMS:
        if path.startswith(prefix):
            return name, level, core
    return None


def why_not(a, b):
    """Why a reference from room a to room b breaks a rule, or None."""
    if a is None or b is None or a[0] == b[0]:
        return None
    (an, al, acore), (bn, bl, bcore) = a, b
    if acore and not bcore:
        return "rule 2: the core (%s) references hosted code (%s)" % (an, bn)
    if acore and bn == "Rtl/<Platform>" and an != "Rtl":
        return "rule 2: the core (%s) reaches a platform back end other " \
               "than through PRTL" % an
    if an in ("Sqlite3Ext", "DuckDbExt") and bn not in SQLITE_REACHES:
        return "rule 1: the extension references %s (it reaches only %s)" % (
            bn, ", ".join(sorted(SQLITE_REACHES)))
    if an == "Rtl/<Platform>" and bn == "Rtl":
        return None                     # a back end fills in the RTL
    if bl >= al:
        where = "beside" if bl == al else "above"
        return "rule 1: %s references %s, a room %s it" % (an, bn, where)
    return None


def resolve(path, name):
    if name.split("/")[0] in TOP:
        target = name
    else:
        target = os.path.join(os.path.dirname(path), name)
    return os.path.normpath(target)


def check_includes(src):
    bad = []
    files = []
    for top in TOP:
        for root, dirs, names in os.walk(os.path.join(src, top)):
            dirs.sort()
            for n in sorted(names):
                if n.endswith((".c", ".h")):
                    files.append(os.path.relpath(os.path.join(root, n), src))
    for path in sorted(files):
        r = room(path)
        with open(os.path.join(src, path), errors="replace") as f:
            for ln, text in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s*([<"])([^>"]*)[>"]', text)
                if not m:
                    continue
                here = "%s:%d" % (path, ln)
                if m.group(1) == "<":
                    if r and r[2] and r[0] != "Rtl/<Platform>" and \
                       m.group(2) not in FREESTANDING and \
                       (path, m.group(2)) not in EXCEPTED:
                        bad.append("%s: rule 4: the core includes <%s> (only "
                                   "the compiler's freestanding headers; "
                                   "platform headers belong in "
                                   "Rtl/<Platform>/)" % (here, m.group(2)))
                    continue
                target = resolve(path, m.group(2))
                t = room(target)
                if t and t[0] == "Sqlite3Ext" and (not r or r[0] !=
                        "Sqlite3Ext") and target != "Sqlite3Ext/tracestore.h":
                    bad.append("%s: rule 3: includes %s (only "
                               "Sqlite3Ext/tracestore.h is public)" %
                               (here, target))
                    continue
                w = why_not(r, t)
                if w:
                    bad.append("%s: %s: #include \"%s\"" % (here, w,
                                                          m.group(2)))
    return bad, len(files)


def objects(src, build):
    """(source path, object path) of each object built from a source of
    the tree by the top-level CMakeLists.txt (not Tests/'s, whose objects
    lie under BUILD_DIR/Tests/), and whose source is still there."""
    out = []
    top = os.path.join(os.path.realpath(build), "CMakeFiles")
    for root, dirs, names in os.walk(build):
        dirs.sort()
        for n in sorted(names):
            if not n.endswith((".c.o", ".c.obj")):
                continue
            p = os.path.join(root, n)
            m = re.search(r"^(.*)/CMakeFiles/[^/]+\.dir/(.*)\.o(bj)?$",
                          os.path.realpath(p))
            if not m or os.path.join(m.group(1), "CMakeFiles") != top:
                continue
            source = m.group(2)
            if room(source) and os.path.isfile(os.path.join(src, source)):
                out.append((source, p))
    return out


def nm(path):
    r = subprocess.run(["nm", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, universal_newlines=True)
    defined, undefined = set(), set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCGSVW" and parts[1].isupper():
            defined.add(parts[2])
    return defined, undefined


def check_symbols(src, build):
    objs = objects(src, build)
    table = {}
    uses = []
    for source, path in objs:
        defined, undefined = nm(path)
        for s in defined:
            table.setdefault(s, set()).add(source)
        uses.append((source, undefined))
    bad = set()
    for source, undefined in uses:
        r = room(source)
        for s in sorted(undefined):
            for owner in sorted(table.get(s, ())):
                w = why_not(r, room(owner))
                if w:
                    bad.add("%s: %s: uses %s (%s)" % (source, w, s, owner))
    return sorted(bad), len(objs)


def main():
    if len(sys.argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    src = sys.argv[1]
    for top in ("Rtl", "TraceStore", "Readers", "Sqlite3Ext"):
        if not os.path.isdir(os.path.join(src, top)):
            print("check_zones.py: no %s/ in %s" % (top, src))
            return 2
    bad, nfiles = check_includes(src)
    nobj = 0
    if len(sys.argv) == 3:
        sym, nobj = check_symbols(src, sys.argv[2])
        if nobj == 0:
            print("check_zones.py: no object files of the tree under %s" %
                  sys.argv[2])
            return 2
        bad += sym
    for b in bad:
        print(b)
    if bad:
        print("%d reference(s) cross a room the wrong way" % len(bad))
        return 1
    print("zones: the includes of %d files%s point down the data flow" %
          (nfiles, " and the symbols of %d objects" % nobj if nobj else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
