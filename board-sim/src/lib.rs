//! The Chess Prodigy board around the emulated ATmega644.

pub mod parts;
