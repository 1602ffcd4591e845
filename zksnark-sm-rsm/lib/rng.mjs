// Randomness for the experiment: the OS CSPRNG by default, or a ChaCha20 keystream keyed by a
// seed when a run must be reproducible (tests, debugging). Never Math.random.
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { P } from "./field.mjs";

const CHUNK = 64 * 1024;

export class Rng {
  /** @param {bigint|null} seed null: OS randomness; otherwise a reproducible ChaCha20 stream. */
  constructor(seed = null) {
    this.seed = seed;
    if (seed !== null) {
      // Domain-separate the key so the same seed used elsewhere in the suite gives other bytes.
      const key = createHash("sha256").update(`zksnark-sm-rsm/rng/${seed.toString()}`).digest();
      this.cipher = createCipheriv("chacha20", key, Buffer.alloc(16));
      this.buf = Buffer.alloc(0);
    }
  }

  bytes(len) {
    if (this.seed === null) return randomBytes(len);
    while (this.buf.length < len) {
      // ChaCha20 of zeros is the keystream itself.
      this.buf = Buffer.concat([this.buf, this.cipher.update(Buffer.alloc(CHUNK))]);
    }
    const out = this.buf.subarray(0, len);
    this.buf = this.buf.subarray(len);
    return Buffer.from(out);
  }

  /** Uniform element of the BN254 scalar field (rejection sampling on 254-bit strings). */
  fieldElement() {
    for (;;) {
      const b = this.bytes(32);
      b[0] &= 0x3f;
      const x = BigInt(`0x${b.toString("hex")}`);
      if (x < P) return x;
    }
  }

  /** Uniform integer in [0, n), n < 2^32, without modulo bias. */
  index(n) {
    if (!Number.isInteger(n) || n < 1 || n > 2 ** 32) throw new RangeError(`bad range ${n}`);
    const limit = Math.floor(2 ** 32 / n) * n;
    for (;;) {
      const x = this.bytes(4).readUInt32BE(0);
      if (x < limit) return x % n;
    }
  }

  /** A string for zokrates-js's `entropy` argument (it seeds its own RNG from it). */
  entropy() {
    return this.bytes(32).toString("hex");
  }
}
