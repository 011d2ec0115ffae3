//! The Chess Prodigy board around the emulated ATmega644.

pub mod parts;
pub mod board;
pub mod headless;
