//! Uniform big integers from a cryptographic RNG.
//!
//! GMP's own generator is a Mersenne Twister (what upstream used, seeded with 13); we draw the
//! bytes from a CSPRNG instead and shape them with rejection sampling, so every mask is uniform.

use rand::{CryptoRng, RngCore};
use rug::{integer::Order, Integer};

/// Uniform in [0, bound). `bound` must be positive.
pub fn below<R: RngCore + CryptoRng>(bound: &Integer, rng: &mut R) -> Integer {
    assert!(*bound > 0, "random bound must be positive");
    let bits = Integer::from(bound - 1u32).significant_bits().max(1);
    let nbytes = bits.div_ceil(8) as usize;
    let excess = (nbytes as u32) * 8 - bits;
    let mut buf = vec![0u8; nbytes];
    loop {
        rng.fill_bytes(&mut buf);
        // Clear the bits above `bits` so a draw is accepted with probability > 1/2.
        buf[0] &= 0xffu8 >> excess;
        let x = Integer::from_digits(&buf, Order::Msf);
        if x < *bound {
            return x;
        }
    }
}

/// Uniform in [0, 2^bits).
pub fn bits<R: RngCore + CryptoRng>(bits: u32, rng: &mut R) -> Integer {
    below(&(Integer::from(1) << bits), rng)
}

/// Uniform in [−bound, bound): the "symmetric" masks of the Σ-protocols.
pub fn symmetric<R: RngCore + CryptoRng>(bound: &Integer, rng: &mut R) -> Integer {
    below(&Integer::from(bound << 1), rng) - bound
}

/// Uniform in [−2^bits, 2^bits).
pub fn symmetric_bits<R: RngCore + CryptoRng>(bits: u32, rng: &mut R) -> Integer {
    symmetric(&(Integer::from(1) << bits), rng)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha20Rng;

    #[test]
    fn draws_stay_in_range_and_cover_it() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let bound = Integer::from(1000);
        let mut seen_high = false;
        for _ in 0..2000 {
            let x = below(&bound, &mut rng);
            assert!(x >= 0 && x < bound);
            seen_high |= x >= 900;
            let s = symmetric(&bound, &mut rng);
            assert!((-1000..1000).contains(&s));
        }
        assert!(seen_high);
        let big = bits(2047, &mut rng);
        assert!(big.significant_bits() <= 2047);
    }
}
