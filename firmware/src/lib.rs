//! Chess Prodigy firmware, target-neutral part.
//!
//! Everything here is `no_std` and free of hardware access, so it builds for
//! the ATmega644 and is unit-tested on the host from the same source. The AVR
//! hardware layer and `main` live in `main.rs` and `hw/`.
#![cfg_attr(not(test), no_std)]
#![cfg_attr(target_arch = "avr", feature(asm_experimental_arch))]

pub mod app;
pub mod board;
pub mod book;
pub mod chess;
pub mod decimal;
pub mod engine;
pub mod game;
pub mod progmem;
pub mod protocol;
pub mod display;
pub mod glyphs;
pub mod keys;
pub mod line;
pub mod ring;
pub mod savegame;
pub mod tones;
pub mod ui;
