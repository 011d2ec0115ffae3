//! The evaluation's weights, in one place.
//!
//! On the AVR (and in every build without the `tune` feature) each weight is
//! a constant and each table a flash table: [`w!`] names a constant, the
//! table readers are one `LPM`. With `tune` (host only, for `cargo xtask
//! tune`) the same names read a live array that the tuner sets, so the
//! tuner measures exactly the evaluation the firmware runs. The defaults
//! are written once, here.
//!
//! They are the hand-set values, not fitted ones: the fits predicted
//! better and played worse. Fitted to Stockfish's depth-8 scores of 94,004
//! quiet positions from host A/B games (held-out loss 0.0212 -> 0.0159),
//! all weights but the tempo played 36.8% against 54.3% over the first
//! 270 games of the host A/B (stopped there). The pawn-structure four
//! alone (doubled 22, isolated 24 and 2, connected -15) measured -18.8% +/-
//! 4.1% over 1,000 paired games, worse at 95%; the piece-square tables,
//! piece terms and passed-pawn tables without them -3.6% +/- 4.1%, not
//! shown. Fitted to game results instead (184,554 positions), the
//! connected-pawn weight again came out strongly negative (-29); freed,
//! the material values hardly moved (N 323, B 347, R 497, Q 962).
//! By hand, in the fits' direction, over all 5,942 games: passed pawns'
//! king distances 8 and 6 (from 4 and 2) -0.54% +/- 0.74%, not shown;
//! rooks on half-open files 15, queen tropism 5 and the others' 2 -1.57%
//! +/- 1.56%, worse at 95%. Over 1,000: connected pawns 12 -5.6% +/-
//! 3.7%; doubled 7, isolated 12 and 14, connected 16 -8.4% +/- 3.7%,
//! both worse at 95%.

/// Declares the scalar weights: a constant each, and their names and
/// defaults in order ([`Scalar`] numbers them) for the live array.
macro_rules! scalar_weights {
    ($($(#[$doc:meta])* $name:ident = $value:expr;)*) => {
        $($(#[$doc])* pub const $name: i16 = $value;)*

        /// Names and defaults of the scalar weights, in live-array order.
        pub const SCALARS: &[(&str, i16)] = &[$((stringify!($name), $value),)*];

        /// A scalar weight's place in the live array.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy)]
        #[repr(usize)]
        pub enum Scalar {
            $($name,)*
        }
    };
}

scalar_weights! {
    /// Each pawn behind another of its colour on its file.
    DOUBLED = 12;
    /// Each pawn of an isolated file with no enemy pawn on it.
    ISOLATED_OPEN = 16;
    /// Each pawn of an isolated file with an enemy pawn on it.
    ISOLATED = 10;
    /// Each pawn side by side with or guarded by a pawn of a next file
    /// (CP1's to-do: it underrated sound pawn formations).
    CONNECTED = 6;
    /// A knight on relative ranks 4..6, guarded by a pawn, that no enemy
    /// pawn can chase away.
    OUTPOST = 18;
    /// A rook on a file without pawns / without own pawns.
    ROOK_OPEN = 20;
    ROOK_HALF_OPEN = 10;
    /// Two rooks on a common rank or file with nothing between them.
    ROOKS_CONNECTED = 10;
    BISHOP_PAIR = 30;
    /// King shield, per file next to the king on its first two ranks:
    /// a pawn one rank ahead, two ranks ahead, none (and no enemy pawn
    /// either: an open file).
    SHIELD_NEAR = 10;
    SHIELD_FAR = 5;
    SHIELD_MISSING = 12;
    SHIELD_OPEN = 8;
    /// Passed pawn in the endgame from relative rank 4 on: per king step
    /// of the enemy king from the square ahead, of the own king.
    PASSED_THEIR_KING = 4;
    PASSED_OWN_KING = 2;
    /// King tropism per step nearer the enemy king (where it stood at the
    /// root): knight, queen, bishop and rook.
    TROPISM_KNIGHT = 2;
    TROPISM_QUEEN = 3;
    TROPISM_OTHER = 1;
    /// The queen off her square in the opening.
    QUEEN_OUT = 15;
    /// The king in endgames, per step from the centre.
    KING_CENTRE = 8;
    /// The side to move.
    TEMPO = 8;
}

/// Piece-square base tables for pawn..king (middlegame king), white's
/// view, a1 = index 0, rank by rank.
pub const PST_DEFAULT: [i8; 384] = [
    // pawn
      0,   0,   0,   0,   0,   0,   0,   0,
      0,   2,   0,  -8,  -8,   2,   4,   0,
      2,   2,   5,   6,   6,   0,   2,   2,
      3,   4,   8,  16,  16,   6,   3,   3,
      6,   8,  12,  20,  20,  12,   8,   6,
     14,  18,  22,  28,  28,  22,  18,  14,
     30,  35,  40,  45,  45,  40,  35,  30,
      0,   0,   0,   0,   0,   0,   0,   0,
    // knight
    -40, -22, -18, -15, -15, -18, -22, -40,
    -25, -10,   0,   5,   5,   0, -10, -25,
    -18,   5,  10,  12,  12,  10,   5, -18,
    -15,   5,  14,  18,  18,  14,   5, -15,
    -15,   8,  16,  20,  20,  16,   8, -15,
    -18,   6,  12,  16,  16,  12,   6, -18,
    -25, -10,   0,   5,   5,   0, -10, -25,
    -40, -25, -20, -15, -15, -20, -25, -40,
    // bishop
    -15,  -6, -10,  -6,  -6, -10,  -6, -15,
     -5,  10,   4,   6,   6,   4,  10,  -5,
     -5,   5,   8,   8,   8,   8,   5,  -5,
     -5,   4,  10,  12,  12,  10,   4,  -5,
     -5,   6,   8,  12,  12,   8,   6,  -5,
     -5,   4,   6,   8,   8,   6,   4,  -5,
     -8,   0,   0,   0,   0,   0,   0,  -8,
    -15,  -8,  -8,  -8,  -8,  -8,  -8, -15,
    // rook
     -2,   0,   4,   8,   8,   4,   0,  -2,
     -6,  -2,   0,   0,   0,   0,  -2,  -6,
     -5,   0,   0,   2,   2,   0,   0,  -5,
     -5,   0,   0,   2,   2,   0,   0,  -5,
     -4,   0,   2,   4,   4,   2,   0,  -4,
     -2,   2,   4,   6,   6,   4,   2,  -2,
     15,  20,  20,  20,  20,  20,  20,  15,
      5,   5,   5,   8,   8,   5,   5,   5,
    // queen
    -10,  -6,  -4,   0,  -4,  -6,  -6, -10,
     -6,   0,   2,   2,   2,   0,   0,  -6,
     -4,   2,   4,   4,   4,   4,   2,  -4,
     -2,   2,   4,   6,   6,   4,   2,  -2,
     -2,   2,   4,   6,   6,   4,   2,  -2,
     -4,   2,   4,   4,   4,   4,   2,  -4,
     -6,   0,   2,   2,   2,   2,   0,  -6,
    -10,  -6,  -4,  -2,  -2,  -4,  -6, -10,
    // king (middlegame)
     15,  25,  10,  -5,   0,  -5,  30,  20,
      5,   5, -10, -20, -20, -15,   5,   8,
    -15, -20, -25, -30, -30, -25, -20, -15,
    -30, -35, -40, -45, -45, -40, -35, -30,
    -40, -45, -50, -55, -55, -50, -45, -40,
    -50, -55, -60, -60, -60, -60, -55, -50,
    -50, -55, -60, -60, -60, -60, -55, -50,
    -50, -55, -60, -60, -60, -60, -55, -50,
];
/// Endgame pawn bonus by relative rank: the gradual promotion bonus.
pub const PAWN_EG_RANK_DEFAULT: [i8; 8] = [0, 0, 4, 10, 20, 36, 60, 0];
/// Passed-pawn bonus by relative rank (middlegame, endgame).
pub const PASSED_MG_DEFAULT: [i8; 8] = [0, 4, 8, 14, 26, 45, 70, 0];
pub const PASSED_EG_DEFAULT: [i8; 8] = [0, 8, 12, 22, 40, 70, 110, 0];

use crate::progmem::Table;

crate::progmem! {
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    pub(crate) static PST: [i8; 384] = PST_DEFAULT;
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    pub(crate) static PAWN_EG_RANK: [i8; 8] = PAWN_EG_RANK_DEFAULT;
    /// (The AVR's passed pawns read these two in assembly.)
    pub(crate) static PASSED_MG: [i8; 8] = PASSED_MG_DEFAULT;
    pub(crate) static PASSED_EG: [i8; 8] = PASSED_EG_DEFAULT;
}

/// The bias of [`PST88`]'s bytes: a table byte is then unsigned, one
/// `add`/`adc` with the material value less the bias (no sign extension).
#[cfg_attr(not(target_arch = "avr"), allow(dead_code))]
pub(crate) const PST88_BIAS: i16 = 128;

/// [`PST_DEFAULT`] for the AVR's [`super::eval::EvalCtx::psq`], in the
/// board's 0x88 layout (the square is the index: no 64-square index to
/// compute), two kinds in a 128-byte block (pawn and knight, bishop and
/// rook, queen and king: the second one's files at 8..15 of a rank's 16
/// bytes), each byte biased by [`PST88_BIAS`]; then
/// [`PAWN_EG_RANK_DEFAULT`], biased too.
#[cfg_attr(not(target_arch = "avr"), allow(dead_code))]
const fn pst88() -> [u8; 392] {
    let mut t = [0u8; 392];
    let mut i = 0;
    while i < 384 {
        let (kind, sq) = (i / 64, i % 64);
        let v = PST_DEFAULT[i] as i16 + PST88_BIAS;
        assert!(v >= 0 && v < 256);
        t[(kind / 2) * 128 + (sq / 8) * 16 + (kind % 2) * 8 + sq % 8] = v as u8;
        i += 1;
    }
    while i < 392 {
        let v = PAWN_EG_RANK_DEFAULT[i - 384] as i16 + PST88_BIAS;
        assert!(v >= 0 && v < 256);
        t[i] = v as u8;
        i += 1;
    }
    t
}

crate::progmem! {
    #[cfg_attr(not(target_arch = "avr"), allow(dead_code))]
    pub(crate) static PST88: [u8; 392] = pst88();
}

/// Where each table starts in the live array: after the scalars, in order.
pub mod place {
    use super::SCALARS;
    pub const PST: usize = SCALARS.len();
    pub const PAWN_EG_RANK: usize = PST + 384;
    pub const PASSED_MG: usize = PAWN_EG_RANK + 8;
    pub const PASSED_EG: usize = PASSED_MG + 8;
    /// Number of live weights.
    pub const COUNT: usize = PASSED_EG + 8;
}

/// A scalar weight by name: its constant, or with `tune` its live value.
#[cfg(not(feature = "tune"))]
macro_rules! w {
    ($name:ident) => {
        $crate::engine::weights::$name
    };
}
#[cfg(feature = "tune")]
macro_rules! w {
    ($name:ident) => {
        $crate::engine::weights::live::get($crate::engine::weights::Scalar::$name as usize)
    };
}
pub(crate) use w;

/// Entry `i` of a byte table of weights that starts at `place` in the
/// live array: from flash, or with `tune` from the live array.
#[inline(always)]
fn entry<const N: usize>(table: &Table<i8, N>, place: usize, i: usize) -> i16 {
    #[cfg(feature = "tune")]
    {
        let _ = table;
        live::get(place + i)
    }
    #[cfg(not(feature = "tune"))]
    {
        let _ = place;
        table.get(i) as i16
    }
}

/// Entry `i` of the piece-square base table.
#[inline(always)]
pub fn pst(i: usize) -> i16 {
    entry(&PST, place::PST, i)
}

/// The endgame pawn bonus of relative rank `r`.
#[inline(always)]
pub fn pawn_eg_rank(r: usize) -> i16 {
    entry(&PAWN_EG_RANK, place::PAWN_EG_RANK, r)
}

/// The passed-pawn bonus of relative rank `r`.
#[inline(always)]
pub fn passed_bonus(endgame: bool, r: usize) -> i16 {
    if endgame {
        entry(&PASSED_EG, place::PASSED_EG, r)
    } else {
        entry(&PASSED_MG, place::PASSED_MG, r)
    }
}

/// The live weights of a `tune` build: the scalars, then the tables.
#[cfg(feature = "tune")]
pub mod live {
    pub use super::place::*;
    use super::{PASSED_EG_DEFAULT, PASSED_MG_DEFAULT, PAWN_EG_RANK_DEFAULT, PST_DEFAULT, SCALARS};
    use core::sync::atomic::{AtomicI16, Ordering};

    /// The default of weight `i`.
    pub const fn default(i: usize) -> i16 {
        if i < PST {
            SCALARS[i].1
        } else if i < PAWN_EG_RANK {
            PST_DEFAULT[i - PST] as i16
        } else if i < PASSED_MG {
            PAWN_EG_RANK_DEFAULT[i - PAWN_EG_RANK] as i16
        } else if i < PASSED_EG {
            PASSED_MG_DEFAULT[i - PASSED_MG] as i16
        } else {
            PASSED_EG_DEFAULT[i - PASSED_EG] as i16
        }
    }

    static LIVE: [AtomicI16; COUNT] = {
        let mut a = [const { AtomicI16::new(0) }; COUNT];
        let mut i = 0;
        while i < COUNT {
            a[i] = AtomicI16::new(default(i));
            i += 1;
        }
        a
    };

    #[inline(always)]
    pub fn get(i: usize) -> i16 {
        LIVE[i].load(Ordering::Relaxed)
    }

    /// Sets weight `i` for every evaluation from now on (all threads).
    pub fn set(i: usize, v: i16) {
        LIVE[i].store(v, Ordering::Relaxed);
    }

    /// Weight `i`'s table and index within it (a scalar: its name and 0).
    pub fn name(i: usize) -> (&'static str, usize) {
        if i < PST {
            (SCALARS[i].0, 0)
        } else if i < PAWN_EG_RANK {
            ("PST", i - PST)
        } else if i < PASSED_MG {
            ("PAWN_EG_RANK", i - PAWN_EG_RANK)
        } else if i < PASSED_EG {
            ("PASSED_MG", i - PASSED_MG)
        } else {
            ("PASSED_EG", i - PASSED_EG)
        }
    }
}

#[cfg(all(test, feature = "tune"))]
mod tests {
    use super::*;

    #[test]
    fn live_weights_start_at_the_defaults() {
        assert_eq!(live::get(Scalar::TEMPO as usize), TEMPO);
        assert_eq!(live::get(live::PST + 6 * 8 + 3), PST_DEFAULT[6 * 8 + 3] as i16);
        assert_eq!(live::get(live::PASSED_EG + 6), 110);
        assert_eq!(live::name(live::PST + 65), ("PST", 65));
        assert_eq!(live::name(Scalar::DOUBLED as usize), ("DOUBLED", 0));
    }
}
