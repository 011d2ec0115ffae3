//! The AVRe+ CPU: decoding, flags and execution.

pub mod decode;
mod exec;
pub mod flags;

pub use decode::{decode, Instr, Ptr};
