#!/usr/bin/env python3
"""kvtree_ref.py - an independent implementation of SCR's hash file format.

Written from the format description alone (big-endian; magic 0x951fc3f5,
u16 type 1, u16 version 1, u64 file size, u32 flags, packed hash, optional
CRC-32 when flag 0x1 is set), sharing no code with lib/. The tests use it to
produce golden files and to check that files written by the C library read
back here, and the reverse.

A tree is given as JSON with every level an object: {"KEY": {"VALUE": {}}}.
Object member order is element order.

  kvtree_ref.py write TREE.json OUT.scr [--no-crc]
  kvtree_ref.py dump FILE.scr           (prints the tree as JSON)
"""
import json
import struct
import sys
import zlib

MAGIC = 0x951FC3F5


def pack(tree):
    out = [struct.pack(">I", len(tree))]
    for key, value in tree.items():
        out.append(key.encode("utf-8") + b"\0")
        out.append(pack(value))
    return b"".join(out)


def unpack(buf, off):
    (count,) = struct.unpack_from(">I", buf, off)
    off += 4
    tree = {}
    for _ in range(count):
        end = buf.index(b"\0", off)
        key = buf[off:end].decode("utf-8")
        value, off = unpack(buf, end + 1)
        if key in tree:
            raise ValueError("duplicate key %r" % key)
        tree[key] = value
    return tree, off


def write_file(tree, crc=True):
    data = pack(tree)
    size = 20 + len(data) + (4 if crc else 0)
    head = struct.pack(">IHHQI", MAGIC, 1, 1, size, 1 if crc else 0)
    body = head + data
    if crc:
        body += struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    return body


def read_file(buf):
    magic, ftype, version, size, flags = struct.unpack_from(">IHHQI", buf, 0)
    if magic != MAGIC or ftype != 1 or version != 1:
        raise ValueError("bad header")
    if size != len(buf):
        raise ValueError("size field %d, file %d bytes" % (size, len(buf)))
    end = len(buf)
    if flags & 1:
        end -= 4
        (stored,) = struct.unpack_from(">I", buf, end)
        if stored != zlib.crc32(buf[:end]) & 0xFFFFFFFF:
            raise ValueError("crc mismatch")
    tree, off = unpack(buf, 20)
    if off != end:
        raise ValueError("trailing bytes")
    return tree


def main(argv):
    if len(argv) >= 4 and argv[1] == "write":
        with open(argv[2], encoding="utf-8") as f:
            tree = json.load(f)
        with open(argv[3], "wb") as f:
            f.write(write_file(tree, crc="--no-crc" not in argv[4:]))
        return 0
    if len(argv) == 3 and argv[1] == "dump":
        with open(argv[2], "rb") as f:
            tree = read_file(f.read())
        json.dump(tree, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
