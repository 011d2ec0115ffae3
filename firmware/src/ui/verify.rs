//! Verify: the men on the board, four per row, White's first.
//!
//! ```text
//! Ke1 Qd1 Ra1 Rh1      upper case: White, lower case: Black
//! Bc1 Bf1 Nb1 Ng1      UP/DOWN scroll a row, MENU/ENTER back to the menu
//! ```

use super::{pressed, updown, Out, Screen, Ui};
use crate::board::Button;
use crate::chess::piece::{Color, BLACK_OFFSET};
use crate::chess::square::square_name;
use crate::display::Display;
use crate::game::{code_at, Game};
use crate::keys::KeyEvent;
use crate::chess::square::from_index64;

crate::progmem! {
    /// Letters of the piece codes 0..=12.
    pub(crate) static PIECE_CHARS: [u8; 13] = *b".PNBRQKpnbrqk";
}

/// Men per row.
const PER_ROW: u8 = 4;

impl Ui {
    #[inline]
    pub(crate) fn key_verify(&mut self, ev: KeyEvent, game: &mut Game) -> Out {
        let step = updown(ev);
        let rows = rows(game);
        if step < 0 && self.sel + 2 < rows {
            self.sel += 1;
        } else if step > 0 && self.sel > 0 {
            self.sel -= 1;
        } else if pressed(ev, Button::Menu) || pressed(ev, Button::Enter) {
            self.screen = Screen::Menu;
        }
        Out::NONE
    }

    #[inline(never)]
    pub(crate) fn draw_verify(&self, game: &Game, d: &mut Display) {
        let white_rows = count(game, Color::White).div_ceil(PER_ROW);
        for r in 0..2 {
            d.clear_row(r);
            let row = self.sel + r;
            let (color, first) = if row < white_rows {
                (Color::White, row * PER_ROW)
            } else {
                (Color::Black, (row - white_rows) * PER_ROW)
            };
            for i in first..first + PER_ROW {
                if let Some((code, sq)) = nth_man(game, color, i) {
                    d.put_char(PIECE_CHARS.get(code as usize));
                    d.put_bytes(&square_name(from_index64(sq)));
                    d.put_char(b' ');
                }
            }
        }
    }
}

/// The `n`th man of `color` (piece code, square 0..=63): king first, then
/// queens, rooks, bishops, knights, pawns, each from a1 to h8.
#[inline(never)]
fn nth_man(game: &Game, color: Color, n: u8) -> Option<(u8, u8)> {
    let mut i = 0;
    for kind in (1..=6u8).rev() {
        let code = if color == Color::White { kind } else { kind + BLACK_OFFSET };
        for sq in 0..64 {
            if code_at(&game.pos, sq) == code {
                if i == n {
                    return Some((code, sq));
                }
                i += 1;
            }
        }
    }
    None
}

fn count(game: &Game, color: Color) -> u8 {
    let mut n = 0;
    while nth_man(game, color, n).is_some() {
        n += 1;
    }
    n
}

/// Rows of the list.
fn rows(game: &Game) -> u8 {
    count(game, Color::White).div_ceil(PER_ROW) + count(game, Color::Black).div_ceil(PER_ROW)
}
