#!/usr/bin/env python3
"""Hostile binary plists, written byte by byte from Apple's format (CFBinaryPList.c):
"bplist00", the objects, an offset table, a 32-byte trailer.  Python's plistlib
cannot write these (it recurses, and it stores each shared object once only
when asked to), so the objects are laid out here.

  bplist-bomb.py deep N OUT      arrays nested N deep
  bplist-bomb.py fanout N OUT    N levels, each an array referencing the next level twice (2^N nodes)
  bplist-bomb.py cycle OUT       an array that contains itself
  bplist-bomb.py nul16 IN OUT    the plist IN, binary, its first string of 4 or more characters
                                 ending in U+00E9 U+0000 'z' (so it is stored as UTF-16)
  bplist-bomb.py ok N OUT        arrays nested N deep, each also holding one string (a benign control)
"""
import plistlib
import struct
import sys

REF = 4  # reference size in bytes: up to 2^32 objects


def refs(*ids):
    return b"".join(struct.pack(">I", i) for i in ids)


def count_marker(kind, n):
    if n < 15:
        return bytes([kind << 4 | n])
    return bytes([kind << 4 | 0xF, 0x12]) + struct.pack(">I", n)


def array(*ids):
    return count_marker(0xA, len(ids)) + refs(*ids)


def dict_(keys, values):
    return count_marker(0xD, len(keys)) + refs(*keys) + refs(*values)


def ascii(s):
    b = s.encode("ascii")
    return count_marker(0x5, len(b)) + b


def write(objects, out, top=0):
    body = bytearray(b"bplist00")
    offsets = []
    for o in objects:
        offsets.append(len(body))
        body += o
    table = len(body)
    for off in offsets:
        body += struct.pack(">Q", off)
    body += bytes(6) + bytes([8, REF]) + struct.pack(">QQQ", len(objects), top, table)
    with open(out, "wb") as f:
        f.write(body)


def main(argv):
    kind = argv[1]
    if kind == "deep":
        n = int(argv[2])
        write([array(i + 1) for i in range(n - 1)] + [array()], argv[3])
    elif kind == "ok":
        n = int(argv[2])
        # object 0 is the string; levels are 1..n
        objs = [ascii("leaf")] + [array(i + 2, 0) for i in range(n - 1)] + [array(0)]
        write(objs, argv[3], top=1)
    elif kind == "fanout":
        n = int(argv[2])
        write([array(i + 1, i + 1) for i in range(n)] + [ascii("x")], argv[3])
    elif kind == "cycle":
        write([array(0)], argv[2])
    elif kind == "nul16":
        with open(argv[2], "rb") as f:
            root = plistlib.load(f)
        done = [False]

        def inject(v):
            if isinstance(v, dict):
                for k in v:
                    v[k] = inject(v[k])
            elif isinstance(v, list):
                for i, x in enumerate(v):
                    v[i] = inject(x)
            elif isinstance(v, str) and len(v) >= 4 and not done[0] and v not in ("$null", "pmcEvents"):
                done[0] = True
                return v + "\u00e9\0z"
            return v
        root = inject(root)
        assert done[0], "no string to alter"
        with open(argv[3], "wb") as f:
            plistlib.dump(root, f, fmt=plistlib.FMT_BINARY)
    else:
        sys.exit("unknown kind " + kind)


main(sys.argv)
