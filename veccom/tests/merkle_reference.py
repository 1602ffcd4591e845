"""Independent computation of veccom's Merkle roots and proofs, for its tests.

The SHA-256 column uses `hashlib` for the leaves (SHA-256 of the 64-byte tag block and the
value) and a plain-Python SHA-256 compression function (FIPS 180-4) for the nodes, which are
one compression of left || right from the chaining value after the node tag block. The
compression function is first checked against `hashlib` on padded messages, so the node values
rest on `hashlib` too. The BLAKE3 column needs the `blake3` package (keyed hashing, derive_key).

Usage:
    merkle_reference.py --column sha256 N [N ...]   one JSON line per N: root and proofs
    merkle_reference.py --column blake3 N [N ...]   the same with BLAKE3

Value i of a length-N test vector is `test_value(i)`, the same definition as in the Rust test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
from collections.abc import Callable

K = [
    0x428A2F98, 0x71374491, 0xB5C0FBCF, 0xE9B5DBA5, 0x3956C25B, 0x59F111F1, 0x923F82A4, 0xAB1C5ED5,
    0xD807AA98, 0x12835B01, 0x243185BE, 0x550C7DC3, 0x72BE5D74, 0x80DEB1FE, 0x9BDC06A7, 0xC19BF174,
    0xE49B69C1, 0xEFBE4786, 0x0FC19DC6, 0x240CA1CC, 0x2DE92C6F, 0x4A7484AA, 0x5CB0A9DC, 0x76F988DA,
    0x983E5152, 0xA831C66D, 0xB00327C8, 0xBF597FC7, 0xC6E00BF3, 0xD5A79147, 0x06CA6351, 0x14292967,
    0x27B70A85, 0x2E1B2138, 0x4D2C6DFC, 0x53380D13, 0x650A7354, 0x766A0ABB, 0x81C2C92E, 0x92722C85,
    0xA2BFE8A1, 0xA81A664B, 0xC24B8B70, 0xC76C51A3, 0xD192E819, 0xD6990624, 0xF40E3585, 0x106AA070,
    0x19A4C116, 0x1E376C08, 0x2748774C, 0x34B0BCB5, 0x391C0CB3, 0x4ED8AA4A, 0x5B9CCA4F, 0x682E6FF3,
    0x748F82EE, 0x78A5636F, 0x84C87814, 0x8CC70208, 0x90BEFFFA, 0xA4506CEB, 0xBEF9A3F7, 0xC67178F2,
]  # fmt: skip
IV = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
]  # fmt: skip
MASK = 0xFFFFFFFF

SHA256_LEAF_LABEL = b"veccom/merkle-sha256/leaf"
SHA256_NODE_LABEL = b"veccom/merkle-sha256/node"
BLAKE3_LEAF_CONTEXT = "veccom merkle-blake3 2024 leaf key"
BLAKE3_NODE_CONTEXT = "veccom merkle-blake3 2024 node key"


def rotr(x: int, r: int) -> int:
    return ((x >> r) | (x << (32 - r))) & MASK


def compress(state: list[int], block: bytes) -> list[int]:
    """One SHA-256 compression of a 64-byte block."""
    assert len(block) == 64
    w = list(struct.unpack(">16I", block))
    for t in range(16, 64):
        s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3)
        s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10)
        w.append((w[t - 16] + s0 + w[t - 7] + s1) & MASK)
    a, b, c, d, e, f, g, h = state
    for t in range(64):
        t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t] + w[t]
        t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))
        a, b, c, d, e, f, g, h = (t1 + t2) & MASK, a, b, c, (d + t1) & MASK, e, f, g
    return [(x + y) & MASK for x, y in zip(state, [a, b, c, d, e, f, g, h], strict=True)]


def sha256_by_compression(msg: bytes) -> bytes:
    """SHA-256 of msg through `compress`, to check it against hashlib."""
    padded = msg + b"\x80" + b"\x00" * ((55 - len(msg)) % 64) + struct.pack(">Q", 8 * len(msg))
    state = IV
    for k in range(0, len(padded), 64):
        state = compress(state, padded[k : k + 64])
    return struct.pack(">8I", *state)


def check_compression() -> None:
    for msg in [b"", b"abc", bytes(range(64)), bytes(200), b"x" * 119]:
        if sha256_by_compression(msg) != hashlib.sha256(msg).digest():
            sys.exit(f"plain-Python SHA-256 compression disagrees with hashlib on {msg!r}")


def tag_block(label: bytes, n: int) -> bytes:
    return (label + struct.pack(">Q", n)).ljust(64, b"\x00")


def test_value(i: int) -> bytes:
    """Value i of the test vectors: i % 70 bytes (short and long leaves alike)."""
    return bytes((7 * i + k) % 256 for k in range(i % 70))


Hasher = tuple[Callable[[bytes], bytes], Callable[[bytes, bytes], bytes]]


def sha256_hasher(n: int) -> Hasher:
    leaf_tag = tag_block(SHA256_LEAF_LABEL, n)
    node_cv = compress(IV, tag_block(SHA256_NODE_LABEL, n))

    def leaf(v: bytes) -> bytes:
        return hashlib.sha256(leaf_tag + v).digest()

    def node(left: bytes, right: bytes) -> bytes:
        return struct.pack(">8I", *compress(node_cv, left + right))

    return leaf, node


def blake3_hasher(n: int) -> Hasher:
    import blake3  # only the BLAKE3 column needs it

    nb = struct.pack(">Q", n)
    leaf_key = blake3.blake3(nb, derive_key_context=BLAKE3_LEAF_CONTEXT).digest()
    node_key = blake3.blake3(nb, derive_key_context=BLAKE3_NODE_CONTEXT).digest()

    def leaf(v: bytes) -> bytes:
        return blake3.blake3(v, key=leaf_key).digest()

    def node(left: bytes, right: bytes) -> bytes:
        return blake3.blake3(left + right, key=node_key).digest()

    return leaf, node


def tree(n: int, hasher: Hasher) -> dict[str, object]:
    """Root, and the proofs of positions 0, n // 2 and n - 1, of the length-n test vector."""
    leaf, node = hasher
    depth = (n - 1).bit_length()
    levels = [[leaf(test_value(i)) for i in range(n)]]
    empty = [bytes(32)]
    for h in range(depth):
        below = levels[h]
        if len(below) % 2:
            below = below + [empty[h]]
        levels.append([node(below[k], below[k + 1]) for k in range(0, len(below), 2)])
        empty.append(node(empty[h], empty[h]))

    def sibling(h: int, k: int) -> bytes:
        return levels[h][k] if k < len(levels[h]) else empty[h]

    proofs = {
        str(i): [sibling(h, (i >> h) ^ 1).hex() for h in range(depth)]
        for i in sorted({0, n // 2, n - 1})
    }
    return {"n": n, "root": levels[depth][0].hex(), "proofs": proofs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--column", choices=["sha256", "blake3"], default="sha256")
    ap.add_argument("n", type=int, nargs="+")
    args = ap.parse_args()
    check_compression()
    make = sha256_hasher if args.column == "sha256" else blake3_hasher
    for n in args.n:
        if n < 1:
            sys.exit(f"n must be at least 1, got {n}")
        print(json.dumps({"column": args.column, **tree(n, make(n))}))


if __name__ == "__main__":
    main()
