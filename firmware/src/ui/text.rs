//! The UI's texts: whole 16-character rows in flash, read one row at a
//! time, and the formatting of moves, scores and times.

use crate::chess::Move;
use crate::display::Display;
use crate::engine::Score;
#[cfg(test)]
use crate::progmem::Table;

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
    // The about pages' rows: reached as AboutTitle + k by `rows_from`.
    #[allow(dead_code)]
    AboutVersion,
    #[allow(dead_code)]
    AboutAfter,
    #[allow(dead_code)]
    AboutAuthor,
    #[allow(dead_code)]
    AboutKeys,
    #[allow(dead_code)]
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
    /// The splash screen's second row (its first is [`Line::AboutTitle`]).
    Splash,
}

/// Short texts put inside rows, with [`word!`](crate::word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Word {
    Square = WORDS_AT,
    Colon,
    Put,
    EnterSet,
    Of5,
    Dashes2,
    NoMove,
    Dot,
    Dots,
    White,
    Black,
    ToMove,
    BlackWon,
    WhiteWon,
    Of12,
    TakeBack,
    All,
    Level,
    Set,
    In,
    MinPlus,
    Sec,
    Min,
    PerMove,
}

/// The [`Word`]s' texts, in their order.
pub(crate) const WORDS: [&[u8]; 24] = [
    b"Square ",
    b": ",
    b"Put ",
    b"  ENTER=set",
    b"/5",
    b"--",
    b"----",
    b".",
    b"...",
    b"White",
    b"Black",
    b" to move",
    b"0-1",
    b"1-0",
    b"/12",
    b"Take back: ",
    b"All",
    b"Level ",
    b"(set)",
    b" in ",
    b"m +",
    b" s",
    b" min",
    b" per move",
];

/// The rows as the LCD shows them (the tests'); only [`PACKED`] goes to flash.
#[cfg(test)]
const ROWS: Table<[u8; 16], 42> = Table::new(RAW_ROWS);

const RAW_ROWS: [[u8; 16]; 42] = [
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
    *b"   v2.0  Rust   ",
];

/// Where the menu's item names (8 characters) and help rows (16) start
/// in [`PACKED`], after the 42 rows.
pub(crate) const MENU_NAMES: u8 = 42;
pub(crate) const MENU_HELP: u8 = MENU_NAMES + 12;
const WORDS_AT: u8 = MENU_HELP + 12;
const TEXTS: usize = WORDS_AT as usize + WORDS.len();

/// Bytes of text in [`PACKED`].
const PACKED_LEN: usize = pack_into(&mut [0; 1024]);

// One byte per text, then the texts without their trailing spaces, each
// ending in a byte with bit 7 set (all text is ASCII); the spaces are put
// back as a text is written. Text `i` starts at byte `9 * i + PACKED[i]`.
crate::progmem! {
    #[export_name = "zz_ui_text_packed"]
    static PACKED: [u8; PACKED_SIZE] = pack();
}

/// Bytes in [`PACKED`]. It is named to sort after the engine's tables in
/// flash (the linker lays out `.progmem` by symbol name). In the place of
/// the rows, 58 B smaller than they were, it moved those tables, whose
/// offsets within 256-byte pages decide carries in the search's address
/// arithmetic, and `bench engine` took 0.16% more cycles; moved by all
/// 944 B of the rows, menu names and help rows, they cost no cycle more.
/// Two bytes of padding move the code after it: without them two words of
/// `.data` (a button's state and the start FEN's " -") equalled the
/// addresses of `App::out` and `Tx::bytes`, which `cargo xtask ram` then
/// counted as targets of the search's indirect calls (stack bound +282 B).
const PACKED_SIZE: usize = TEXTS + PACKED_LEN + 2;

const fn pack() -> [u8; PACKED_SIZE] {
    let mut texts = [0u8; PACKED_LEN];
    pack_into(&mut texts);
    let mut out = [0u8; PACKED_SIZE];
    let mut k = 0;
    let mut i = 0;
    while k < PACKED_LEN {
        if k == 0 || texts[k - 1] & 0x80 != 0 {
            let at = TEXTS + k - 9 * i;
            assert!(at < 256);
            out[i] = at as u8;
            i += 1;
        }
        out[TEXTS + k] = texts[k];
        k += 1;
    }
    out
}

/// Packs the texts into `out`; returns their length.
const fn pack_into(out: &mut [u8]) -> usize {
    let (rows, names, help) = (RAW_ROWS, super::menu::NAMES, super::menu::HELP);
    let mut k = 0;
    let mut i = 0;
    while i < TEXTS {
        let r: &[u8] = if i < MENU_NAMES as usize {
            &rows[i]
        } else if i < MENU_HELP as usize {
            &names[i - MENU_NAMES as usize]
        } else if i < WORDS_AT as usize {
            &help[i - MENU_HELP as usize]
        } else {
            WORDS[i - WORDS_AT as usize]
        };
        let mut n = r.len();
        while n > 1 && r[n - 1] == b' ' {
            n -= 1;
        }
        let mut j = 0;
        while j < n {
            assert!(r[j] < 0x80);
            out[k] = r[j] | if j + 1 == n { 0x80 } else { 0 };
            k += 1;
            j += 1;
        }
        i += 1;
    }
    k
}

/// Writes [`Word`] `$w` at the cursor: its index and length are all
/// a call site loads.
#[macro_export]
macro_rules! word {
    ($d:expr, $w:ident) => {{
        use $crate::ui::text::{Word, WORDS};
        let n = const { WORDS[Word::$w as usize - Word::Square as usize].len() as u8 };
        $crate::ui::text::put_word($d, Word::$w as u8, n)
    }};
}

/// Writes fixed row `l` on `row`.
pub fn row(d: &mut Display, row: u8, l: Line) {
    put_row(d, row, l as u8);
}

/// Writes fixed rows `l + k` and `l + k + 1` on rows 0 and 1.
pub fn rows_from(d: &mut Display, l: Line, k: u8) {
    put_row(d, 0, l as u8 + k);
    put_row(d, 1, l as u8 + k + 1);
}

/// Writes message `m` on row 1.
pub fn msg_row(d: &mut Display, m: Msg) {
    put_row(d, 1, m as u8);
}

/// Writes text `i` of [`PACKED`] as a whole row on `row`.
pub(crate) fn put_row(d: &mut Display, row: u8, i: u8) {
    d.set_cursor(row, 0);
    put_packed(d, i, 16);
}

/// Writes the first `n` characters of fixed row `l` at the cursor.
pub fn put_part(d: &mut Display, l: Line, n: usize) {
    put_packed(d, l as u8, n.min(16) as u8);
}

/// Text `i` of [`PACKED`] and spaces up to `n` characters: [`put_word`],
/// as every `n` given is at least the text's length (a row's 16, a menu
/// name's 8, "Hint" in 5, "Book" in 4). It went through a 16-byte buffer
/// and `put_bytes`, with `put_char` inlined, for the thinking screen's
/// row 1 (drawn at each refresh): 182 B, and no faster (`bench engine`
/// 15,854 cycles fewer without it).
#[inline(always)]
pub(crate) fn put_packed(d: &mut Display, i: u8, n: u8) {
    put_word(d, i, n);
}

/// Text `i` of [`PACKED`] and spaces up to `n` characters (not fewer than
/// the text has), straight to `put_char` as the short flash strings were
/// written: no buffer to set up.
#[inline(never)]
pub(crate) fn put_word(d: &mut Display, i: u8, mut n: u8) {
    let mut k = start(i);
    loop {
        let c = PACKED.get(k);
        k += 1;
        d.put_char(c & 0x7f);
        n = n.wrapping_sub(1);
        if c & 0x80 != 0 {
            break;
        }
    }
    while n as i8 > 0 {
        d.put_char(b' ');
        n -= 1;
    }
}

/// Where text `i` starts in [`PACKED`].
#[inline(always)]
fn start(i: u8) -> usize {
    9 * i as usize + PACKED.get(i as usize) as usize
}

/// Coordinate notation ("e2e4", "e7e8q"), or "----" for no move.
pub fn put_move(d: &mut Display, m: Move) {
    let mut b = [0u8; 5];
    match crate::protocol::coord_text(m, &mut b) {
        0 => crate::word!(d, NoMove),
        n => d.put_bytes(b.get(..n as usize).unwrap_or(&[])),
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
        put_pair(d, v.min(9999), 100, 0, b'.');
    }
}

/// `v / div` right-aligned in `width` columns of spaces, `sep`, and
/// `v % div` in two digits: a score's pawns ("0.35"), a clock's minutes
/// ("12:05"). One copy for the two (flash).
#[inline(never)]
fn put_pair(d: &mut Display, v: u16, div: u16, width: u8, sep: u8) {
    d.put_u32((v / div) as u32, width, b' ');
    d.put_char(sep);
    d.put_u32((v % div) as u32, 2, b'0');
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
    put_pair(d, s as u16, 60, 2, b':');
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
    fn packed_rows_show_as_the_rows() {
        for (i, r) in ROWS.as_slice().iter().enumerate() {
            let mut d = Display::new();
            d.set_cursor(1, 0);
            put_packed(&mut d, i as u8, 16);
            assert_eq!(d.row(1), *r);
            d.set_cursor(0, 3);
            put_packed(&mut d, i as u8, 5);
            assert_eq!(d.row(0)[3..8], r[..5]);
        }
        let menu = super::super::menu::NAMES.iter().map(|r| r.as_slice());
        let help = super::super::menu::HELP.iter().map(|r| r.as_slice());
        for (i, r) in menu.chain(help).enumerate() {
            let mut d = Display::new();
            d.set_cursor(1, 0);
            put_packed(&mut d, MENU_NAMES + i as u8, r.len() as u8);
            assert_eq!(d.row(1)[..r.len()], *r);
        }
        for (i, w) in WORDS.iter().enumerate() {
            let mut d = Display::new();
            d.set_cursor(1, 0);
            put_word(&mut d, WORDS_AT + i as u8, w.len() as u8);
            d.put_char(b'|');
            assert_eq!(d.row(1)[..w.len() + 1], [*w, b"|"].concat());
        }
    }

    #[test]
    fn rows_are_the_enums() {
        assert_eq!(ROWS.as_slice()[Msg::NotYourMove as usize], *b"Not your move   ");
        assert_eq!(ROWS.as_slice()[Line::NewGame as usize], *b"New game?       ");
        assert_eq!(ROWS.as_slice()[Line::YourMove as usize], *b"Your move:      ");
        assert_eq!(Line::Splash as usize + 1, ROWS.len());
        assert_eq!(Line::AboutKeys2 as u8, Line::AboutTitle as u8 + 5);
    }
}
