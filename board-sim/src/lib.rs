//! The Chess Prodigy board around the emulated ATmega644.

#[cfg(feature = "gui")]
pub mod app;
#[cfg(feature = "audio")]
pub mod audio;
pub mod board;
pub mod gdb;
pub mod headless;
pub mod parts;
pub mod uci;
