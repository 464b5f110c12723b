#!/usr/bin/env python3
"""Makes a shared library a DuckDB extension file: appends the metadata
footer DuckDB checks when it loads one (DuckDB's append_metadata.cmake
writes the same).

usage: duckdb_footer.py LIBRARY OUTPUT PLATFORM CAPI_VERSION EXT_VERSION

The footer: a WebAssembly custom section header naming duckdb_signature
(22 bytes; native loaders skip it), eight 32-byte NUL-padded fields in
reverse order (DuckDB reads them from the end: the magic "4", the
platform, the C API version the extension needs, the extension's
version, the ABI type "C_STRUCT", three empty), then a 256-byte signature,
zero for an unsigned extension (LOAD needs allow_unsigned_extensions)."""
import sys


def field(text):
    data = text.encode("ascii")
    if len(data) > 32:
        sys.exit("duckdb_footer.py: %r is longer than 32 bytes" % text)
    return data.ljust(32, b"\0")


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__.split("\n\n")[1])
    library, output, platform, capi, version = sys.argv[1:]
    fields = [field("4"), field(platform), field(capi), field(version),
              field("C_STRUCT"), field(""), field(""), field("")]
    section = (b"\x00" + b"\x93\x04" + b"\x10" + b"duckdb_signature" +
               b"\x80\x04")
    with open(library, "rb") as f:
        data = f.read()
    with open(output, "wb") as f:
        f.write(data + section + b"".join(reversed(fields)) + bytes(256))


main()
