//! The building blocks: groups and big integers, Fiat–Shamir transcripts, the security setting,
//! commitments, encryption schemes, signatures and secret sharing, and the encoding of every value
//! a party sends to another process. Each module's documentation states the maths it implements.

pub mod bbsig;
pub mod bbsplus;
pub mod bigint;
pub mod counters;
pub mod elgamal;
pub mod fo;
pub mod group;
pub mod paillier;
pub mod pedersen;
pub mod security;
pub mod sharing;
pub mod thpaillier;
pub mod transcript;
pub mod wire;
