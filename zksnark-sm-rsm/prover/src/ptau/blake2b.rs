//! BLAKE2b-512 (RFC 7693, no key) whose state can be written out part-way, as a `.ptau`
//! contribution records it.
//!
//! A contribution stores the hash of its response (the compressed points and then the
//! contributor's public key) as a *partial hash*: the hasher's state after the points, so that a
//! verifier who reads the key can finish it without hashing the points again. snarkjs writes
//! the state of its JavaScript BLAKE2b (noble-hashes) in 216 bytes: the pending block (128
//! bytes), the chaining value as sixteen little-endian u32 (low word first), the count of bytes
//! already compressed as two u32 (low, high), and the count of bytes pending as two u32. That
//! hasher, like RFC 7693's reference, compresses a block only once more input follows it, so
//! the last block (full or not) is always pending; this one does the same, so the two agree on
//! the state after any input.

/// The initialisation vector (SHA-512's, RFC 7693 section 2.6).
const IV: [u64; 8] = [
    0x6a09e667f3bcc908,
    0xbb67ae8584caa73b,
    0x3c6ef372fe94f82b,
    0xa54ff53a5f1d36f1,
    0x510e527fade682d1,
    0x9b05688c2b3e6c1f,
    0x1f83d9abfb41bd6b,
    0x5be0cd19137e2179,
];

/// The message schedule of the twelve rounds (rounds 10 and 11 repeat 0 and 1).
const SIGMA: [[usize; 16]; 10] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
    [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
    [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
    [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
    [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
    [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
    [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
    [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
    [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
];

const BLOCK: usize = 128;

/// The size of a written-out state.
pub const PARTIAL_BYTES: usize = 216;

/// A BLAKE2b-512 hasher whose state can be written out part-way in snarkjs's layout.
#[derive(Clone)]
pub struct Blake2b {
    h: [u64; 8],
    /// Bytes compressed so far (the last block stays pending until more input or the end).
    compressed: u64,
    block: [u8; BLOCK],
    pending: usize,
}

impl Default for Blake2b {
    fn default() -> Self {
        Self::new()
    }
}

impl Blake2b {
    /// BLAKE2b with a 64-byte digest and no key.
    pub fn new() -> Self {
        let mut h = IV;
        h[0] ^= 0x0101_0000 ^ 64; // parameter block: digest length 64, key length 0, fanout 1, depth 1
        Blake2b {
            h,
            compressed: 0,
            block: [0; BLOCK],
            pending: 0,
        }
    }

    /// Absorbs `data`, keeping the last block pending as snarkjs's hasher does.
    pub fn update(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            if self.pending == BLOCK {
                self.compressed += BLOCK as u64;
                let block = self.block;
                self.compress(&block, self.compressed as u128, false);
                self.pending = 0;
            }
            let take = (BLOCK - self.pending).min(data.len());
            self.block[self.pending..self.pending + take].copy_from_slice(&data[..take]);
            self.pending += take;
            data = &data[take..];
        }
    }

    /// The 64-byte digest of everything absorbed.
    pub fn finalize(mut self) -> [u8; 64] {
        let total = self.compressed as u128 + self.pending as u128;
        self.block[self.pending..].fill(0);
        let block = self.block;
        self.compress(&block, total, true);
        let mut out = [0u8; 64];
        for (chunk, word) in out.chunks_exact_mut(8).zip(self.h) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        out
    }

    /// The state in the 216-byte layout of a `.ptau` contribution (module documentation); bytes
    /// of the pending block past its end are written as zeros.
    pub fn partial(&self) -> [u8; PARTIAL_BYTES] {
        let mut out = [0u8; PARTIAL_BYTES];
        out[..self.pending].copy_from_slice(&self.block[..self.pending]);
        let mut words = Vec::with_capacity(20);
        for w in self.h {
            words.push(w as u32);
            words.push((w >> 32) as u32);
        }
        words.push(self.compressed as u32);
        words.push((self.compressed >> 32) as u32);
        words.push(self.pending as u32);
        words.push(0);
        for (chunk, w) in out[BLOCK..].chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// A hasher resumed from [`Blake2b::partial`]'s layout.
    pub fn from_partial(bytes: &[u8; PARTIAL_BYTES]) -> Self {
        let word = |i: usize| {
            u32::from_le_bytes(bytes[BLOCK + 4 * i..BLOCK + 4 * i + 4].try_into().unwrap()) as u64
        };
        let mut h = [0u64; 8];
        for (i, hi) in h.iter_mut().enumerate() {
            *hi = word(2 * i) | (word(2 * i + 1) << 32);
        }
        let mut block = [0u8; BLOCK];
        block.copy_from_slice(&bytes[..BLOCK]);
        Blake2b {
            h,
            compressed: word(16) | (word(17) << 32),
            block,
            pending: (word(18) | (word(19) << 32)) as usize,
        }
    }

    fn compress(&mut self, block: &[u8; BLOCK], counter: u128, last: bool) {
        let mut m = [0u64; 16];
        for (mi, chunk) in m.iter_mut().zip(block.chunks_exact(8)) {
            *mi = u64::from_le_bytes(chunk.try_into().unwrap());
        }
        let mut v = [0u64; 16];
        v[..8].copy_from_slice(&self.h);
        v[8..].copy_from_slice(&IV);
        v[12] ^= counter as u64;
        v[13] ^= (counter >> 64) as u64;
        if last {
            v[14] = !v[14];
        }
        for round in 0..12 {
            let s = &SIGMA[round % 10];
            mix(&mut v, 0, 4, 8, 12, m[s[0]], m[s[1]]);
            mix(&mut v, 1, 5, 9, 13, m[s[2]], m[s[3]]);
            mix(&mut v, 2, 6, 10, 14, m[s[4]], m[s[5]]);
            mix(&mut v, 3, 7, 11, 15, m[s[6]], m[s[7]]);
            mix(&mut v, 0, 5, 10, 15, m[s[8]], m[s[9]]);
            mix(&mut v, 1, 6, 11, 12, m[s[10]], m[s[11]]);
            mix(&mut v, 2, 7, 8, 13, m[s[12]], m[s[13]]);
            mix(&mut v, 3, 4, 9, 14, m[s[14]], m[s[15]]);
        }
        for i in 0..8 {
            self.h[i] ^= v[i] ^ v[i + 8];
        }
    }
}

/// RFC 7693's G function.
fn mix(v: &mut [u64; 16], a: usize, b: usize, c: usize, d: usize, x: u64, y: u64) {
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(x);
    v[d] = (v[d] ^ v[a]).rotate_right(32);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(24);
    v[a] = v[a].wrapping_add(v[b]).wrapping_add(y);
    v[d] = (v[d] ^ v[a]).rotate_right(16);
    v[c] = v[c].wrapping_add(v[d]);
    v[b] = (v[b] ^ v[c]).rotate_right(63);
}

/// BLAKE2b-512 of `data`.
pub fn digest(data: &[u8]) -> [u8; 64] {
    let mut h = Blake2b::new();
    h.update(data);
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use blake2::Digest;
    use measure::hex::encode as hex;
    use rand::{RngCore, SeedableRng};

    #[test]
    fn rfc_7693_vector() {
        // RFC 7693, appendix A: BLAKE2b-512("abc").
        assert_eq!(
            hex(&digest(b"abc")),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1\
             7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923"
        );
    }

    #[test]
    fn agrees_with_the_blake2_crate_for_any_split_and_resumes_from_its_partial_state() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
        for len in [0usize, 1, 127, 128, 129, 255, 256, 257, 1000, 4096] {
            let mut data = vec![0u8; len];
            rng.fill_bytes(&mut data);
            let expected: [u8; 64] = blake2::Blake2b512::digest(&data).into();
            for cut in [0, len / 3, len / 2, len] {
                let mut h = Blake2b::new();
                h.update(&data[..cut]);
                let resumed = Blake2b::from_partial(&h.partial());
                h.update(&data[cut..]);
                assert_eq!(h.finalize(), expected, "len {len}, cut {cut}");
                let mut r = resumed;
                r.update(&data[cut..]);
                assert_eq!(r.finalize(), expected, "resumed: len {len}, cut {cut}");
            }
        }
    }
}
