//! The game screen and move entry.
//!
//! ```text
//! 12...e7e5+ 04:51     row 0: last move (+ check, # mate), Book, or the
//! Your move: e2..      clock of the side to move in a tournament game
//! ```
//!
//! Row 1 is the move entry: four fields (from file, from rank, to file, to
//! rank; a fifth for the promotion piece when the move needs one) under the
//! LCD's blinking cursor, the fields still to come shown as dots. UP/DOWN change the field, ENTER takes it and moves
//! on; after the last field the move is played, or refused with "Illegal
//! move" and a low beep. MENU goes back one field (on the first field it
//! opens the menu); a long MENU always opens the menu, a long ENTER starts
//! the entry again. When the game is over row 1 tells why and any key opens
//! the menu on "New".

use super::text::{self, Line, Msg, Word};
use super::{pressed, updown, wrap, Busy, Out, Request, Screen, Ui};
use crate::board::Button;
use crate::chess::piece::{Color, BISHOP, KNIGHT, QUEEN, ROOK};
use crate::chess::square::square;
use crate::chess::{GameStatus, Move};
use crate::display::Display;
use crate::word;
use crate::game::{Game, LEVEL_TOURNAMENT};
use crate::keys::{KeyEvent, KeyKind};
use crate::tones::Sound;

/// Column of the first entry field.
pub(crate) const ENTRY_COL: u8 = 11;

crate::progmem! {
    static PROMO_CHARS: [u8; 4] = *b"qrbn";
    static PROMO_KINDS: [u8; 4] = [QUEEN, ROOK, BISHOP, KNIGHT];
}

impl Ui {
    /// Starts a fresh entry for the side to move.
    #[inline(never)]
    pub(crate) fn reset_entry(&mut self, game: &Game) {
        self.field = 0;
        self.user_white = game.pos.side_to_move() == Color::White;
        self.entry[1] = if self.user_white { 1 } else { 6 };
        self.hint = Move::NONE;
    }

    #[inline]
    pub(crate) fn key_play(&mut self, ev: KeyEvent, game: &mut Game) -> Out {
        self.screen = Screen::Play;
        if game.status().is_over() {
            if matches!(ev.key, Button::Menu | Button::Enter) {
                self.open_menu(super::MenuItem::New);
            }
            return Out::NONE;
        }
        if ev.key == Button::Menu && ev.kind == KeyKind::Long {
            self.open_menu_here();
            return Out::NONE;
        }
        if pressed(ev, Button::Menu) && self.field == 0 {
            self.open_menu_here();
            return Out::NONE;
        }
        if pressed(ev, Button::Enter) && self.field == 3 {
            return self.try_move(game, false);
        }
        if pressed(ev, Button::Enter) && self.field == 4 {
            return self.try_move(game, true);
        }
        self.edit_entry(ev);
        Out::NONE
    }

    /// Entry editing that needs no position (shared with pondering).
    fn edit_entry(&mut self, ev: KeyEvent) {
        let step = updown(ev);
        if step != 0 {
            let f = self.field as usize;
            self.entry[f] = wrap(self.entry[f], step, if f == 4 { 4 } else { 8 });
        } else if pressed(ev, Button::Menu) && self.field > 0 {
            self.field -= 1;
        } else if ev.key == Button::Enter && ev.kind == KeyKind::Long {
            self.field = 0;
        } else if pressed(ev, Button::Enter) && self.field < 3 {
            if self.field == 1 && self.hint.is_none() {
                // The destination starts one rank forward of the origin
                // (a hint's destination is kept).
                self.entry[2] = self.entry[0];
                let r = self.entry[1];
                self.entry[3] = if self.user_white { (r + 1).min(7) } else { r.saturating_sub(1) };
            }
            self.field += 1;
        }
    }

    /// MENU always opens the menu on its first item, so key sequences are
    /// the same every time (the manual's walkthrough relies on it).
    fn open_menu_here(&mut self) {
        self.open_menu(super::MenuItem::Move);
    }

    /// The entered move: legal → played; needs a promotion piece → asks for
    /// it; else refused.
    fn try_move(&mut self, game: &mut Game, with_promo: bool) -> Out {
        let from = square(self.entry[0], self.entry[1]);
        let to = square(self.entry[2], self.entry[3]);
        let promo = if with_promo { PROMO_KINDS.get(self.entry[4] as usize) } else { 0 };
        if game.computer.plays(game.pos.side_to_move()) {
            self.field = 0;
            self.show(Msg::NotYourMove);
            return Out::sound(Sound::Error);
        }
        match game.find_move(from, to, promo) {
            Some(m) => {
                let side = game.pos.side_to_move();
                game.play(m);
                game.charge_clock(side, self.now.wrapping_sub(self.turn_start));
                self.turn_start = self.now;
                self.book = false;
                self.reset_entry(game);
                Out::sound(announce(game))
            }
            None if !with_promo && game.find_move(from, to, QUEEN).is_some() => {
                self.entry[4] = 0;
                self.field = 4;
                Out::NONE
            }
            None => {
                self.field = 0;
                self.show(Msg::Illegal);
                Out::sound(Sound::Error)
            }
        }
    }

    /// Move entry while the engine ponders on the guessed reply: typing
    /// needs no position; the finished entry is compared with the guess.
    #[inline(never)]
    pub(crate) fn key_ponder(&mut self, ev: KeyEvent) -> Out {
        if ev.key == Button::Menu && (ev.kind == KeyKind::Long || self.field == 0) {
            return Out::req(Request::Interrupt);
        }
        if pressed(ev, Button::Enter) && self.field >= 3 {
            let g = self.ponder;
            let same = !g.is_promotion()
                && self.field == 3
                && g.from() == square(self.entry[0], self.entry[1])
                && g.to() == square(self.entry[2], self.entry[3]);
            if !same {
                return Out::req(Request::Interrupt);
            }
            // The guess was right: the search goes on as the computer's move.
            self.ponder_hit_at = Some(self.now);
            self.busy = Busy::Play;
            self.start_think(Busy::Play, self.now);
            return Out { sound: Some(Sound::MoveMade), req: Request::PonderHit };
        }
        self.edit_entry(ev);
        Out::NONE
    }

    /// The driver starts pondering on `guess` (already played on the board).
    pub fn start_ponder(&mut self, guess: Move) {
        self.busy = Busy::Ponder;
        self.ponder = guess;
        self.ponder_hit_at = None;
    }

    /// Pondering ended without a hit (the guess has been taken back).
    pub fn ponder_ended(&mut self) {
        self.busy = Busy::Idle;
        self.ponder = Move::NONE;
    }

    /// The computer plays `m` (from the book if `book`) at `now`.
    #[inline(never)]
    pub fn computer_moved(&mut self, game: &mut Game, m: Move, book: bool, now: u32) -> Out {
        self.now = now;
        if let Some(hit) = self.ponder_hit_at.take() {
            // The user's move (the guess) was made at the ponder hit.
            let user = game.pos.side_to_move().other();
            game.charge_clock(user, hit.wrapping_sub(self.turn_start));
            self.turn_start = hit;
        }
        self.busy = Busy::Idle;
        self.screen = Screen::Play;
        self.ponder = Move::NONE;
        if m.is_none() {
            return Out::NONE;
        }
        let side = game.pos.side_to_move();
        game.play(m);
        game.charge_clock(side, now.wrapping_sub(self.turn_start));
        self.turn_start = now;
        self.book = book;
        self.reset_entry(game);
        Out::sound(announce(game))
    }

    /// The hint search ended: the move is shown and put into the entry.
    #[inline]
    pub fn hint_found(&mut self, m: Move) {
        self.busy = Busy::Idle;
        self.screen = Screen::Play;
        if m.is_none() {
            return;
        }
        self.field = 0;
        self.entry[0] = m.from() & 7;
        self.entry[1] = m.from() >> 4;
        self.entry[2] = m.to() & 7;
        self.entry[3] = m.to() >> 4;
        self.entry[4] = 0;
        self.hint = m;
    }

    /// Starts the clock of the side to move (new game, loaded game).
    pub fn start_turn(&mut self, now: u32) {
        self.turn_start = now;
    }

    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub(crate) fn draw_play(&self, game: Option<&Game>, d: &mut Display) {
        let Some(game) = game else {
            self.draw_entry(d);
            return;
        };
        d.clear_row(0);
        let status = game.status();
        let last = game.last_move();
        if !self.hint.is_none() {
            text::put_part(d, Line::Hint, 5);
            text::put_move(d, self.hint);
        } else if !last.is_none() {
            let white_moved = game.pos.side_to_move() == Color::Black;
            let n = game.pos.fullmove_number() - if white_moved { 0 } else { 1 };
            d.put_u32(n as u32, 0, b' ');
            if white_moved {
                word!(d, Dot);
            } else {
                word!(d, Dots);
            }
            text::put_move(d, last);
            if status == GameStatus::Checkmate {
                d.put_char(b'#');
            } else if game.pos.in_check() {
                d.put_char(b'+');
            }
        } else {
            // "White" or "Black", the next word.
            const _: () = assert!(Word::Black as u8 == Word::White as u8 + 1);
            text::put_word(d, Word::White as u8 + game.pos.side_to_move().index() as u8, 5);
            word!(d, ToMove);
        }
        if game.level == LEVEL_TOURNAMENT {
            d.set_cursor(0, 11);
            text::put_clock(d, game.clock_ms[game.pos.side_to_move().index()]);
        } else if self.book {
            d.set_cursor(0, 12);
            text::put_part(d, Line::BookMove, 4);
        }
        if status == GameStatus::Ongoing {
            self.draw_entry(d);
            return;
        }
        // The endings' rows are in `GameStatus`'s order: the row by
        // arithmetic, not a call a status (flash).
        const _: () = assert!(
            Line::Stalemate as u8 == Line::Checkmate as u8 + 1
                && Line::DrawFifty as u8 == Line::Checkmate as u8 + 2
                && Line::DrawRepetition as u8 == Line::Checkmate as u8 + 3
                && Line::DrawMaterial as u8 == Line::Checkmate as u8 + 4
                && GameStatus::Checkmate as u8 == 1
                && GameStatus::Stalemate as u8 == 2
                && GameStatus::DrawFiftyMoves as u8 == 3
                && GameStatus::DrawThreefold as u8 == 4
                && GameStatus::DrawInsufficientMaterial as u8 == 5
        );
        text::put_row(d, 1, Line::Checkmate as u8 - 1 + status as u8);
        if status == GameStatus::Checkmate {
            d.set_cursor(1, 13);
            // "0-1" if White is mated, "1-0" (the next word) if Black.
            const _: () = assert!(Word::WhiteWon as u8 == Word::BlackWon as u8 + 1);
            text::put_word(d, Word::BlackWon as u8 + game.pos.side_to_move().index() as u8, 3);
        }
    }

    fn draw_entry(&self, d: &mut Display) {
        text::row(d, 1, Line::YourMove);
        d.set_cursor(1, ENTRY_COL);
        // Fields not reached yet show as dots: "e...", "e2..", "e2e.".
        for f in 0..4u8 {
            let base = if f & 1 == 0 { b'a' } else { b'1' };
            d.put_char(if f <= self.field { base + self.entry[f as usize] } else { b'.' });
        }
        if self.field == 4 {
            d.put_char(PROMO_CHARS.get(self.entry[4] as usize));
        }
    }

    pub(crate) fn play_cursor(&self, game: Option<&Game>) -> Option<(u8, u8)> {
        if matches!(self.busy, Busy::Play | Busy::Hint | Busy::Remote) {
            return None;
        }
        if game.is_some_and(|g| g.status().is_over()) {
            return None;
        }
        Some((1, ENTRY_COL + self.field))
    }
}

/// The sound for the position after a move: the end of the game, check,
/// or a plain move.
pub(crate) fn announce(game: &Game) -> Sound {
    if game.status().is_over() {
        Sound::GameEnd
    } else if game.pos.in_check() {
        Sound::Check
    } else {
        Sound::MoveMade
    }
}
