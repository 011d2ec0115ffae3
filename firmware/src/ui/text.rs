//! The UI's texts: whole 16-character rows in flash, read one row at a
//! time, and the formatting of moves, scores and times.

use crate::chess::Move;
use crate::display::Display;
use crate::engine::Score;
use crate::flash_str;
use crate::progmem::{read_flash, Table};

/// Transient messages on row 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Msg {
    Illegal = 0,
    GameOver,
    NothingBack,
    Saved,
    SaveFailed,
    Loaded,
    NoSave,
    BadSave,
    Cleared,
    BadSetup,
    TakenBack,
    NotYourMove,
}

/// Fixed rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Line {
    NewGame = 12,
    EnterYesMenuNo,
    Thinking,
    Hint,
    Analysing,
    AboutTitle,
    AboutVersion,
    AboutAfter,
    AboutAuthor,
    AboutKeys,
    AboutKeys2,
    Checkmate,
    Stalemate,
    DrawFifty,
    DrawRepetition,
    DrawMaterial,
    AnalyzeTitle,
    AlterSquares,
    ClearBoard,
    SideWhite,
    SideBlack,
    Done,
    Cancel,
    LevelInfinite,
    TournamentHead,
    GuessOn,
    GuessOff,
    BookMove,
    YourMove,
}

crate::progmem! {
    static ROWS: [[u8; 16]; 41] = [
        // Messages
        *b"Illegal move    ",
        *b"The game is over",
        *b"Nothing to undo ",
        *b"Game saved      ",
        *b"Save failed     ",
        *b"Game loaded     ",
        *b"No saved game   ",
        *b"Saved game bad  ",
        *b"Board cleared   ",
        *b"Illegal setup   ",
        *b"Move taken back ",
        *b"Not your move   ",
        // Lines
        *b"New game?       ",
        *b"ENTER=yes MENU=n",
        *b"Thinking        ",
        *b"Hint            ",
        *b"Analysing       ",
        *b" Chess Prodigy  ",
        *b"  v2.0  (Rust)  ",
        *b"After CP1 v1.2 b",
        *b"y Cristian Zaslo",
        *b"MENU=menu UP/DN=",
        *b"choose ENTER=ok ",
        *b"Checkmate       ",
        *b"Stalemate    1/2",
        *b"Draw: 50 moves  ",
        *b"Draw: repetition",
        *b"Draw: material  ",
        *b"Analyze         ",
        *b"Alter squares   ",
        *b"Clear board     ",
        *b"Side: White     ",
        *b"Side: Black     ",
        *b"Done: play      ",
        *b"Cancel          ",
        *b"Until ENTER     ",
        *b"Mvs  Min  Inc s ",
        *b"Guess: on       ",
        *b"Guess: off      ",
        *b"Book            ",
        *b"Your move:      ",
    ];
}

/// Writes a flash string at the cursor (one copy of the loop for all lengths).
#[inline(always)]
pub fn put<const N: usize>(d: &mut Display, s: &Table<u8, N>) {
    put_raw(d, s as *const Table<u8, N> as *const u8, N);
}

#[inline(never)]
fn put_raw(d: &mut Display, p: *const u8, n: usize) {
    for i in 0..n {
        // SAFETY: `p..p+n` is a flash string (see `put`).
        d.put_char(unsafe { read_flash(p.add(i)) });
    }
}

/// Writes fixed row `l` on `row`.
pub fn row(d: &mut Display, row: u8, l: Line) {
    put_row(d, row, l as u8);
}

/// Writes message `m` on row 1.
pub fn msg_row(d: &mut Display, m: Msg) {
    put_row(d, 1, m as u8);
}

fn put_row(d: &mut Display, row: u8, i: u8) {
    let r = ROWS.get(i as usize);
    d.set_cursor(row, 0);
    d.put_bytes(&r);
}

/// Writes the first `n` characters of fixed row `l` at the cursor.
pub fn put_part(d: &mut Display, l: Line, n: usize) {
    let r = ROWS.get(l as usize);
    d.put_bytes(&r[..n.min(16)]);
}

/// Coordinate notation ("e2e4", "e7e8q"), or "----" for no move.
pub fn put_move(d: &mut Display, m: Move) {
    let mut b = [0u8; 5];
    match m.write_coord(&mut b) {
        Some(n) if !m.is_none() => d.put_bytes(&b[..n]),
        _ => put(d, flash_str!(b"----")),
    }
}

/// A score in pawns ("+0.35", "-1.20") or a mate ("+M3", "-M3"); 5
/// characters for scores under 10 pawns.
#[inline(never)]
pub fn put_score(d: &mut Display, s: Score) {
    let (neg, v) = match s {
        Score::Cp(c) => (c < 0, c.unsigned_abs()),
        Score::Mate(m) => (m < 0, m.unsigned_abs() as u16),
    };
    d.put_char(if neg { b'-' } else { b'+' });
    if let Score::Mate(_) = s {
        d.put_char(b'M');
        d.put_u32(v as u32, 0, b' ');
    } else {
        let v = v.min(9999);
        d.put_u32((v / 100) as u32, 0, b' ');
        d.put_char(b'.');
        d.put_u32((v % 100) as u32, 2, b'0');
    }
}

/// Minutes and seconds ("12:05"), hours as minutes above 99 ("125m").
pub fn put_clock(d: &mut Display, ms: u32) {
    let s = ms / 1000;
    if s >= 100 * 60 {
        d.put_u32(s / 60, 4, b' ');
        d.put_char(b'm');
        return;
    }
    // Below 6,000: 16-bit arithmetic (no 32-bit division).
    let s = s as u16;
    d.put_u32((s / 60) as u32, 2, b' ');
    d.put_char(b':');
    d.put_u32((s % 60) as u32, 2, b'0');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(f: impl Fn(&mut Display)) -> String {
        let mut d = Display::new();
        d.set_cursor(0, 0);
        f(&mut d);
        String::from_utf8(d.row(0).to_vec()).unwrap().trim_end().to_string()
    }

    #[test]
    fn scores() {
        assert_eq!(shown(|d| put_score(d, Score::Cp(35))), "+0.35");
        assert_eq!(shown(|d| put_score(d, Score::Cp(-120))), "-1.20");
        assert_eq!(shown(|d| put_score(d, Score::Cp(0))), "+0.00");
        assert_eq!(shown(|d| put_score(d, Score::Cp(2500))), "+25.00");
        assert_eq!(shown(|d| put_score(d, Score::Cp(-30000))), "-99.99");
        assert_eq!(shown(|d| put_score(d, Score::Mate(3))), "+M3");
        assert_eq!(shown(|d| put_score(d, Score::Mate(-12))), "-M12");
    }

    #[test]
    fn clocks_and_moves() {
        assert_eq!(shown(|d| put_clock(d, 725_400)), "12:05");
        assert_eq!(shown(|d| put_clock(d, 5_000)), " 0:05");
        assert_eq!(shown(|d| put_clock(d, 7_500_000)), " 125m");
        assert_eq!(shown(|d| put_move(d, Move::NONE)), "----");
    }

    #[test]
    fn rows_are_the_enums() {
        assert_eq!(ROWS.as_slice()[Msg::NotYourMove as usize], *b"Not your move   ");
        assert_eq!(ROWS.as_slice()[Line::NewGame as usize], *b"New game?       ");
        assert_eq!(ROWS.as_slice()[Line::YourMove as usize], *b"Your move:      ");
        assert_eq!(Line::YourMove as usize + 1, ROWS.len());
    }
}
