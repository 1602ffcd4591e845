// Randomness for the experiment: the OS CSPRNG by default, or, for a reproducible run, a
// ChaCha20 keystream keyed from the run's public seed (64 hex digits, 32 bytes) and a stream's
// domain name, as the suite's Rust programs key theirs (measure::seed): the key is
// SHA-256(len(domain) as 8 bytes big-endian || domain || seed). Anything drawn from a seed is
// reproducible and therefore not secret. Never Math.random.
import { createCipheriv, createHash, randomBytes } from "node:crypto";
import { P } from "./field.mjs";
import { L } from "./babyjubjub.mjs";

const CHUNK = 64 * 1024;

/** Parses a --seed: exactly 64 hexadecimal digits; returns them lower-case, or throws. */
export function parseSeed(s) {
  if (typeof s !== "string" || !/^[0-9a-fA-F]{64}$/.test(s.trim())) {
    const shown = typeof s === "string" ? `'${s}' (${s.length} characters)` : String(s);
    throw new RangeError(`--seed must be 64 hexadecimal digits (32 bytes), got ${shown}`);
  }
  return s.trim().toLowerCase();
}

/** The 32-byte ChaCha20 key of the stream `domain` of a seed (64 hex digits). */
export function streamKey(seedHex, domain) {
  const len = Buffer.alloc(8);
  len.writeBigUInt64BE(BigInt(Buffer.byteLength(domain)));
  return createHash("sha256").update(len).update(domain).update(Buffer.from(seedHex, "hex")).digest();
}

export class Rng {
  /**
   * @param {string|null} seed null: OS randomness; otherwise 64 hex digits, a reproducible
   *   ChaCha20 stream for `domain`.
   * @param {string} domain the stream's name, e.g. "zksnark-sm-rsm/inputs".
   */
  constructor(seed = null, domain = "zksnark-sm-rsm/inputs") {
    this.seed = seed === null ? null : parseSeed(seed);
    if (this.seed !== null) {
      this.cipher = createCipheriv("chacha20", streamKey(this.seed, domain), Buffer.alloc(16));
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

  /** Uniform integer in [0, bound) with `bits` = bitlength(bound) (rejection sampling). */
  below(bound, bits) {
    const top = bits % 8 === 0 ? 0xff : (1 << (bits % 8)) - 1;
    for (;;) {
      const b = this.bytes(Math.ceil(bits / 8));
      b[0] &= top;
      const x = BigInt(`0x${b.toString("hex")}`);
      if (x < bound) return x;
    }
  }

  /** Uniform element of the BN254 scalar field. */
  fieldElement() {
    return this.below(P, 254);
  }

  /** Uniform in [0, L), L the order of Baby Jubjub's prime subgroup: set values, randomness. */
  belowL() {
    return this.below(L, 251);
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
