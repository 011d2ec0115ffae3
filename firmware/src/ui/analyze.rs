//! Analyze: set up a position.
//!
//! A list (UP/DOWN, ENTER): Alter squares, Clear board, Side (toggles),
//! Done (plays from the new position if it is legal, else "Illegal
//! setup"), Cancel. The square editor:
//!
//! ```text
//! Square e4: wP        fields: file, rank (row 0), piece (row 1);
//! Put wQ  ENTER=set    UP/DOWN change, ENTER next / put the piece
//! ```
//!
//! MENU goes back a field, and from the first field back to the list.
//! The edited board lives in the UI (32 bytes, a nibble per square) until
//! Done; castling rights survive while king and rook stay at home.

use super::text::{self, Line, Msg};
use super::verify::PIECE_CHARS;
use super::{pressed, updown, wrap, Out, Screen, Setup, Ui};
use crate::board::Button;
use crate::chess::piece::Color;
use crate::chess::{Writer, FEN_MAX_LEN, WHITE_KINGSIDE, WHITE_QUEENSIDE, BLACK_KINGSIDE, BLACK_QUEENSIDE};
use crate::display::Display;
use crate::word;
use crate::game::{code_at, Game};
use crate::keys::KeyEvent;
use crate::tones::Sound;

const ITEMS: u8 = 5;

impl Setup {
    pub fn get(&self, sq: u8) -> u8 {
        (self.board[(sq / 2) as usize] >> ((sq & 1) * 4)) & 15
    }

    pub fn set(&mut self, sq: u8, code: u8) {
        self.put_code(sq, code);
        // Rights whose king or rook left home are gone; putting a king or
        // rook on its home square grants the rights it completes.
        let home = self.possible_castling();
        let touched = match sq {
            4 => WHITE_KINGSIDE | WHITE_QUEENSIDE,
            7 => WHITE_KINGSIDE,
            0 => WHITE_QUEENSIDE,
            60 => BLACK_KINGSIDE | BLACK_QUEENSIDE,
            63 => BLACK_KINGSIDE,
            56 => BLACK_QUEENSIDE,
            _ => 0,
        };
        self.castling = (self.castling | touched) & home;
    }

    /// Puts `code` on `sq`, the castling rights untouched. Out of line:
    /// `set` and `Ui::load_setup` share it.
    #[inline(never)]
    fn put_code(&mut self, sq: u8, code: u8) {
        let b = &mut self.board[(sq / 2) as usize];
        let shift = (sq & 1) * 4;
        *b = (*b & !(15 << shift)) | (code << shift);
    }

    /// Rights whose king and rook stand at home.
    fn possible_castling(&self) -> u8 {
        let mut r = 0;
        if self.get(4) == 6 {
            r |= if self.get(7) == 4 { WHITE_KINGSIDE } else { 0 } | if self.get(0) == 4 { WHITE_QUEENSIDE } else { 0 };
        }
        if self.get(60) == 12 {
            r |= if self.get(63) == 10 { BLACK_KINGSIDE } else { 0 } | if self.get(56) == 10 { BLACK_QUEENSIDE } else { 0 };
        }
        r
    }

    /// The set-up position as FEN; returns its length.
    pub fn fen(&self, out: &mut [u8; FEN_MAX_LEN]) -> usize {
        let mut codes = [0u8; 64];
        for (i, c) in codes.iter_mut().enumerate() {
            *c = self.get(i as u8);
        }
        let mut w = Writer::new(out);
        w.head(&codes, self.white_to_move, self.castling);
        w.put(b'-');
        w.finish().unwrap_or(0)
    }
}

impl Ui {
    #[inline]
    pub(crate) fn load_setup(&mut self, game: &Game) {
        let s = &mut self.setup;
        for sq in 0..64 {
            s.put_code(sq, code_at(&game.pos, sq));
        }
        s.castling = game.pos.castle_rights();
        s.white_to_move = game.pos.side_to_move() == Color::White;
        s.square = 4;
        s.piece = s.get(4);
    }

    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub(crate) fn key_analyze(&mut self, ev: KeyEvent, game: &mut Game) -> Out {
        let step = updown(ev);
        if step != 0 {
            self.sel = wrap(self.sel, -step, ITEMS);
            return Out::NONE;
        }
        if pressed(ev, Button::Menu) {
            self.screen = Screen::Menu;
            return Out::NONE;
        }
        if !pressed(ev, Button::Enter) {
            return Out::NONE;
        }
        match self.sel {
            0 => {
                self.field = 0;
                self.setup.piece = self.setup.get(self.setup.square);
                self.screen = Screen::Edit;
            }
            1 => {
                self.setup.board = [0; 32];
                self.setup.castling = 0;
                self.show(Msg::Cleared);
            }
            2 => self.setup.white_to_move = !self.setup.white_to_move,
            3 => {
                let mut fen = [0u8; FEN_MAX_LEN];
                let n = self.setup.fen(&mut fen);
                if game.set_fen(&fen[..n]).is_err() {
                    self.show(Msg::BadSetup);
                    return Out::sound(Sound::Error);
                }
                self.reset(game);
                self.turn_start = self.now;
                return Out::sound(Sound::MoveMade);
            }
            _ => self.screen = Screen::Menu,
        }
        Out::sound(Sound::KeyClick)
    }

    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub(crate) fn key_edit(&mut self, ev: KeyEvent) -> Out {
        let step = updown(ev);
        let s = &mut self.setup;
        if step != 0 {
            match self.field {
                0 => s.square = (s.square & !7) | wrap(s.square & 7, step, 8),
                1 => s.square = (s.square & 7) | wrap(s.square >> 3, step, 8) << 3,
                _ => s.piece = wrap(s.piece, step, 13),
            }
            if self.field < 2 {
                s.piece = s.get(s.square);
            }
        } else if pressed(ev, Button::Menu) {
            if self.field == 0 {
                self.screen = Screen::Analyze;
            } else {
                self.field -= 1;
            }
        } else if pressed(ev, Button::Enter) {
            if self.field < 2 {
                self.field += 1;
            } else {
                s.set(s.square, s.piece);
                self.field = 0;
            }
            return Out::sound(Sound::KeyClick);
        }
        Out::NONE
    }

    #[inline(never)]
    pub(crate) fn draw_analyze(&self, d: &mut Display) {
        let s = &self.setup;
        if self.screen == Screen::Edit {
            d.clear_row(0);
            word!(d, Square);
            d.put_char(b'a' + (s.square & 7));
            d.put_char(b'1' + (s.square >> 3));
            word!(d, Colon);
            put_piece(d, s.get(s.square));
            d.clear_row(1);
            word!(d, Put);
            put_piece(d, s.piece);
            word!(d, EnterSet);
            return;
        }
        text::row(d, 0, Line::AnalyzeTitle);
        d.set_cursor(0, 12);
        d.put_u32(self.sel as u32 + 1, 0, b' ');
        word!(d, Of5);
        let line = match self.sel {
            0 => Line::AlterSquares,
            1 => Line::ClearBoard,
            2 if s.white_to_move => Line::SideWhite,
            2 => Line::SideBlack,
            3 => Line::Done,
            _ => Line::Cancel,
        };
        text::row(d, 1, line);
    }
}

/// "wP", "bk" style: colour and piece letter, "--" for empty.
fn put_piece(d: &mut Display, code: u8) {
    if code == 0 {
        word!(d, Dashes2);
        return;
    }
    d.put_char(if code <= 6 { b'w' } else { b'b' });
    d.put_char(PIECE_CHARS.get(if code <= 6 { code } else { code - 6 } as usize));
}
