//! MSP on BLS12-381 with `blst`, outside any circuit: what Mithril signers and aggregators run.
//!
//! * [`curve`]: the group operations, multi-scalar multiplications and pairing products;
//! * [`msp`]: keys, signatures, MSP.AKey / MSP.ASig, MSP.BKey / MSP.BSig, MSP.Ver and batch
//!   verification of several aggregates.

pub mod curve;
pub mod msp;
