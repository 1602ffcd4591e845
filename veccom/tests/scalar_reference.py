"""RFC 9380 hash_to_field into the BLS12-381 scalar field, in plain Python (hashlib), as an
independent check of veccom's value hashing.

Usage: scalar_reference.py DST MSG_HEX [MSG_HEX ...]
Prints one line per message: the scalar, 32 bytes big-endian, in hex.
"""

from __future__ import annotations

import hashlib
import sys

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001


def expand_message_xmd(msg: bytes, dst: bytes, length: int) -> bytes:
    """RFC 9380, section 5.3.1, with SHA-256 (64-byte blocks, 32-byte outputs)."""
    ell = (length + 31) // 32
    if ell > 255 or len(dst) > 255 or length > 65535:
        raise ValueError("expand_message_xmd: length or DST too long")
    dst_prime = dst + bytes([len(dst)])
    z_pad = bytes(64)
    b0 = hashlib.sha256(z_pad + msg + length.to_bytes(2, "big") + b"\x00" + dst_prime).digest()
    blocks = [hashlib.sha256(b0 + b"\x01" + dst_prime).digest()]
    for i in range(2, ell + 1):
        mixed = bytes(x ^ y for x, y in zip(b0, blocks[-1], strict=True))
        blocks.append(hashlib.sha256(mixed + bytes([i]) + dst_prime).digest())
    return b"".join(blocks)[:length]


def hash_to_scalar(msg: bytes, dst: bytes) -> int:
    """hash_to_field(msg, 1) for F_r: L = ceil((255 + 128) / 8) = 48 bytes, reduced mod r."""
    return int.from_bytes(expand_message_xmd(msg, dst, 48), "big") % R


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dst = sys.argv[1].encode()
    for h in sys.argv[2:]:
        print(hash_to_scalar(bytes.fromhex(h), dst).to_bytes(32, "big").hex())


if __name__ == "__main__":
    main()
