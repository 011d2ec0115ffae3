//! The Chess Prodigy board around the emulated ATmega644.

pub mod parts;
pub mod board;
pub mod headless;
pub mod uci;
pub mod gdb;
#[cfg(feature = "gui")]
pub mod app;
#[cfg(feature = "audio")]
pub mod audio;
