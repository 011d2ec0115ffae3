//! Chess Prodigy firmware, target-neutral part.
//!
//! Everything here is `no_std` and free of hardware access, so it builds for
//! the ATmega644 and is unit-tested on the host from the same source. The AVR
//! hardware layer and `main` live in `main.rs` and `hw/`.
#![cfg_attr(not(test), no_std)]
#![cfg_attr(target_arch = "avr", feature(asm_experimental_arch))]
// `#[optimize(speed)]` on a few hot functions: the image is built for size
// (profile `avr`, opt-level "s"), which makes LLVM pass up some branch and
// loop shapes that are faster and, on the AVR, often no larger. Each
// function was measured alone with `cargo xtask bench engine` (45,761 nodes
// to depth 4): attacked_victims -0.40% cycles for +4 B, least_attacker
// -0.24% +4 B, make_move_into -0.09% +8 B, is_legal_given_check -0.14%
// -12 B, attacked_after -0.04%, in_check_after -0.05% -4 B, qsearch
// -0.02% -8 B; together 643,317,890 -> 636,893,492 cycles (-1.00%) in 4 B
// less flash. (attacked_victims is assembly now; MoveGen::next and
// next_pawn, with the officers' walk in assembly, gained 0.09% and 0.08%
// with it.) Slower with it (left at "s"): MoveGen::next while its walk was
// Rust, next_capture, Picker::next, officers, dynamic, pawn_structure,
// improve; no faster or
// not changed: swap, piece_key, uncovers, gives_check, next_special,
// hanging, search, enter and a dozen smaller ones. Opt-level "z" for the
// rest of the image instead of "s" was 2 KB larger.
// `#[optimize(size)]` (LLVM's minsize) on big functions that run outside
// the search (FEN set-up, the serial protocol, the UI's key handlers and
// the play screen, the app's jobs, the book lookup, saved games, game
// status, perft, and `boot` in main.rs): 304 B less flash, the search
// untouched. On `App::search`, which holds the iteration loop, it saved
// only 12 B: left out.
#![cfg_attr(target_arch = "avr", feature(optimize_attribute))]

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
