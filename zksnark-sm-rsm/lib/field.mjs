// Arithmetic in the BN254 scalar field, which is Baby Jubjub's base field and ZoKrates's `field`.

export const P = 21888242871839275222246405745257275088548364400416034343698204186575808495617n;

export const mod = (a) => {
  const r = a % P;
  return r < 0n ? r + P : r;
};

/** Inverse by the extended Euclidean algorithm (far faster than a^(p-2) with BigInt). */
export function inv(a) {
  let [r0, r1] = [mod(a), P];
  if (r0 === 0n) throw new RangeError("inverse of zero");
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return mod(s0);
}

/** Inverses of many nonzero elements with one field inversion (Montgomery's trick). */
export function batchInv(xs) {
  const prefix = new Array(xs.length);
  let acc = 1n;
  for (let i = 0; i < xs.length; i++) {
    prefix[i] = acc;
    acc = (acc * xs[i]) % P;
  }
  let accInv = inv(acc);
  const out = new Array(xs.length);
  for (let i = xs.length - 1; i >= 0; i--) {
    out[i] = (accInv * prefix[i]) % P;
    accInv = (accInv * xs[i]) % P;
  }
  return out;
}

/** Big-endian 32-byte encoding, as ZoKrates's 256-bit unpacking sees a field element. */
export function toBytes32(x) {
  return Buffer.from(x.toString(16).padStart(64, "0"), "hex");
}
