#!/bin/sh
#
# check_imports.sh PE_FILE...
#
# The CRT-free check on Windows: each PE file may import from KERNEL32.dll
# and ntdll.dll only (no msvcrt, ucrt or api-ms-win-crt-*), as listed by
# x86_64-w64-mingw32-objdump -p.  Prints the DLLs; exit 1 on any other.
#
set -u
status=0
for pe in "$@"; do
  dlls=$(x86_64-w64-mingw32-objdump -p "$pe" | sed -n 's/^[[:space:]]*DLL Name: //p')
  [ -n "$dlls" ] || { echo "$pe: no imports listed (not a PE file?)"; status=1; continue; }
  for dll in $dlls; do
    case "$(echo "$dll" | tr 'A-Z' 'a-z')" in
      kernel32.dll|ntdll.dll) echo "$pe: imports $dll" ;;
      *) echo "$pe: imports $dll: not allowed (kernel32/ntdll only)"; status=1 ;;
    esac
  done
done
exit $status
