#!/bin/sh
#
# vs_projects_catches.sh SOURCE_DIR VS_TARGETS
#
# vs_projects.py check must be able to fail: in a scratch copy of the
# tree it plants, one at a time, a source missing from a project, a source
# no CMake target has, a solution GUID that is not the project's, a
# ProjectReference to a missing project and a core project without the
# CRT-free props, and expects each reported.
#
set -u
src=$(cd "$1" && pwd); targets=$2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/vs-catches.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
status=0
plant() {   # WHAT EXPECTED-MESSAGE FILE SED-SCRIPT
  rm -rf "$scratch/t"; mkdir "$scratch/t"
  (cd "$src" && tar cf - --exclude='./build*' --exclude=./.git .) | (cd "$scratch/t" && tar xf -)
  sed -i "$4" "$scratch/t/$3"
  out=$(python3 "$src/Tests/Windows/vs_projects.py" check "$scratch/t" "$targets")
  if [ $? = 0 ] || ! echo "$out" | grep -q "$2"; then
    echo "NOT CAUGHT: $1"; echo "$out" | head -5; status=1
  else
    echo "caught: $1: $(echo "$out" | grep "$2" | head -1)"
  fi
}
plant "a source missing from Readers.vcxproj" "PerfStat.c is in CMake target" \
  Readers/Readers.vcxproj '/PerfStat.c/d'
plant "a source of no CMake target" "RtlLinux.c is in the project but in no CMake target" \
  Rtl/Rtl.vcxproj 's|<ClCompile Include="RtlString.c" />|&<ClCompile Include="Linux\\RtlLinux.c" />|'
plant "a solution GUID that is not the project's" "Tracer.sln: Rtl is {" \
  Tracer.sln '/"Rtl", "Rtl\\Rtl.vcxproj"/s/{[0-9A-F]/{F/2'
plant "a reference to a missing project" "which does not exist" \
  TraceStore/TraceStore.vcxproj 's|..\\Rtl\\Rtl.vcxproj|..\\Rtl\\Gone.vcxproj|'
plant "a core project without TracerCore.props" "without TracerCore.props" \
  Rtl/Rtl.vcxproj '/TracerCore.props/d'
exit $status
