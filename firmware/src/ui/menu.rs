//! The menu: CP1's parameter list, and the small screens behind it.
//!
//! ```text
//! >Level      3/12     row 0: the item, its number
//! 15 s per move        row 1: what it does, or its value
//! ```
//!
//! UP/DOWN move through the list (wrapping), ENTER selects, MENU returns to
//! the game. Guess and Back act in place (ENTER again toggles / takes back
//! one more move), so the menu stays open.

use super::text::{self, Line, Msg};
use super::{pressed, updown, wrap, Out, Request, Screen, Ui};
use crate::board::Button;
use crate::display::Display;
use crate::word;
use crate::engine::LEVEL_SECONDS;
use crate::game::{Game, Opponent, TimeControl, LEVELS, LEVEL_TOURNAMENT};
use crate::keys::KeyEvent;
use crate::tones::Sound;

/// The items, in CP1's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MenuItem {
    Move = 0,
    Hint,
    Level,
    Guess,
    Back,
    Swap,
    Verify,
    Analyze,
    Save,
    Load,
    New,
    About,
}

pub const MENU_ITEMS: u8 = 12;

// In flash as part of text::PACKED.
pub(crate) const NAMES: [[u8; 8]; 12] = [
    *b"Move    ", *b"Hint    ", *b"Level   ", *b"Guess   ", *b"Back    ", *b"Swap    ",
    *b"Verify  ", *b"Analyze ", *b"Save    ", *b"Load    ", *b"New     ", *b"About   ",
];
pub(crate) const HELP: [[u8; 16]; 12] = [
    *b"Back to the game",
    *b"Suggest a move  ",
    *b"                ",
    *b"                ",
    *b"Take back a move",
    *b"Swap colours    ",
    *b"List the men    ",
    *b"Set up position ",
    *b"Save to EEPROM  ",
    *b"Load from EEPROM",
    *b"Start a new game",
    *b"About this game ",
];

crate::progmem! {
    /// Choices of the tournament editor: moves per control (0 = all),
    /// minutes, increment in seconds.
    /// Moves 0..7, minutes 7..20, increments 20..29.
    static TC_CHOICES: [u8; 29] = [
        0, 10, 20, 30, 40, 50, 60,
        1, 2, 3, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180,
        0, 1, 2, 3, 5, 10, 15, 20, 30,
    ];
}

impl Ui {
    /// Opens the menu on `item`.
    pub(crate) fn open_menu(&mut self, item: MenuItem) {
        self.menu = item as u8;
        self.screen = Screen::Menu;
    }

    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub(crate) fn key_menu(&mut self, ev: KeyEvent, game: &mut Game) -> Out {
        let step = updown(ev);
        if step != 0 {
            self.msg = None;
            self.menu = wrap(self.menu, -step, MENU_ITEMS);
            return Out::NONE;
        }
        if pressed(ev, Button::Menu) {
            self.msg = None;
            self.screen = Screen::Play;
            return Out::NONE;
        }
        if !pressed(ev, Button::Enter) {
            return Out::NONE;
        }
        self.msg = None;
        let over = game.status().is_over();
        match self.menu {
            0 => self.screen = Screen::Play,
            1 => {
                if over {
                    self.show(Msg::GameOver);
                    return Out::sound(Sound::Error);
                }
                if game.computer.plays(game.pos.side_to_move()) {
                    self.show(Msg::NotYourMove);
                    return Out::sound(Sound::Error);
                }
                self.hint_wanted = true;
                self.screen = Screen::Play;
            }
            2 => {
                self.sel = game.level;
                self.screen = Screen::Level;
            }
            3 => game.guess = !game.guess,
            4 => return self.take_back(game),
            5 => {
                if over {
                    self.show(Msg::GameOver);
                    return Out::sound(Sound::Error);
                }
                game.computer = Opponent::of(game.pos.side_to_move());
                self.screen = Screen::Play;
                self.turn_start = self.now;
            }
            6 => {
                self.sel = 0;
                self.screen = Screen::Verify;
            }
            7 => {
                self.load_setup(game);
                self.sel = 0;
                self.screen = Screen::Analyze;
            }
            8 => return Out::req(Request::Save),
            9 => return Out::req(Request::Load),
            10 => self.screen = Screen::ConfirmNew,
            _ => {
                self.sel = 0;
                self.screen = Screen::About;
            }
        }
        Out::sound(Sound::KeyClick)
    }

    /// Takes back the last move; if the computer would then be to move,
    /// its move before too, so the user is to move again.
    fn take_back(&mut self, game: &mut Game) -> Out {
        if !game.take_back() {
            self.show(Msg::NothingBack);
            return Out::sound(Sound::Error);
        }
        if game.computer.plays(game.pos.side_to_move()) && game.takebacks() > 0 {
            game.take_back();
        }
        self.book = false;
        self.reset_entry(game);
        self.turn_start = self.now;
        self.show(Msg::TakenBack);
        Out::sound(Sound::KeyClick)
    }

    #[inline(never)]
    pub(crate) fn draw_menu(&self, game: &Game, d: &mut Display) {
        d.clear_row(0);
        d.put_char(b'>');
        text::put_packed(d, text::MENU_NAMES + self.menu, 8);
        d.set_cursor(0, 11);
        d.put_u32(self.menu as u32 + 1, 2, b' ');
        word!(d, Of12);
        d.set_cursor(1, 0);
        match self.menu {
            2 => level_text(d, game.level, &game.tc),
            3 => text::row(d, 1, if game.guess { Line::GuessOn } else { Line::GuessOff }),
            4 => {
                word!(d, TakeBack);
                d.put_u32(game.takebacks() as u32, 0, b' ');
                d.pad_row();
            }
            i => text::put_packed(d, text::MENU_HELP + i, 16),
        }
    }

    // ---- Level -------------------------------------------------------

    #[inline]
    pub(crate) fn key_level(&mut self, ev: KeyEvent, game: &mut Game) -> Out {
        let step = updown(ev);
        if step != 0 {
            self.sel = wrap(self.sel, step, LEVELS);
        } else if pressed(ev, Button::Menu) {
            self.screen = Screen::Menu;
        } else if pressed(ev, Button::Enter) {
            if self.sel == LEVEL_TOURNAMENT {
                self.tc_edit = game.tc;
                self.field = 0;
                self.screen = Screen::Tournament;
            } else {
                game.level = self.sel;
                self.screen = Screen::Menu;
            }
            return Out::sound(Sound::KeyClick);
        }
        Out::NONE
    }

    #[inline]
    pub(crate) fn key_tournament(&mut self, ev: KeyEvent, game: &mut Game) -> Out {
        let step = updown(ev);
        if step != 0 {
            let tc = &mut self.tc_edit;
            match self.field {
                0 => tc.moves = cycle(0, 7, tc.moves, step),
                1 => tc.minutes = cycle(7, 13, tc.minutes, step),
                _ => tc.increment = cycle(20, 9, tc.increment, step),
            }
        } else if pressed(ev, Button::Menu) {
            if self.field == 0 {
                self.screen = Screen::Level;
            } else {
                self.field -= 1;
            }
        } else if pressed(ev, Button::Enter) {
            if self.field < 2 {
                self.field += 1;
            } else {
                game.level = LEVEL_TOURNAMENT;
                game.tc = self.tc_edit;
                game.reset_clocks();
                self.field = 0;
                self.screen = Screen::Menu;
            }
            return Out::sound(Sound::KeyClick);
        }
        Out::NONE
    }

    #[inline(never)]
    pub(crate) fn draw_level(&self, game: &Game, d: &mut Display) {
        if self.screen == Screen::Tournament {
            text::row(d, 0, Line::TournamentHead);
            d.clear_row(1);
            let tc = &self.tc_edit;
            if tc.moves == 0 {
                word!(d, All);
            } else {
                d.put_u32(tc.moves as u32, 3, b' ');
            }
            d.set_cursor(1, 5);
            d.put_u32(tc.minutes as u32, 3, b' ');
            d.set_cursor(1, 10);
            d.put_u32(tc.increment as u32, 3, b' ');
            return;
        }
        d.clear_row(0);
        word!(d, Level);
        if self.sel == LEVEL_TOURNAMENT {
            d.put_char(b'T');
        } else {
            d.put_char(b'0' + self.sel);
        }
        if self.sel == game.level {
            d.set_cursor(0, 10);
            word!(d, Set);
        }
        d.set_cursor(1, 0);
        level_text(d, self.sel, &game.tc);
    }

    // ---- New, About ----------------------------------------------------

    #[inline]
    pub(crate) fn key_confirm_new(&mut self, ev: KeyEvent, game: &mut Game) -> Out {
        if pressed(ev, Button::Enter) {
            game.new_game();
            self.reset(game);
            self.turn_start = self.now;
            return Out::sound(Sound::MoveMade);
        }
        if pressed(ev, Button::Menu) {
            self.screen = Screen::Menu;
        }
        Out::NONE
    }

    #[inline]
    pub(crate) fn key_about(&mut self, ev: KeyEvent) -> Out {
        let step = updown(ev);
        if step != 0 {
            self.sel = wrap(self.sel, -step, 3);
        } else if pressed(ev, Button::Menu) || pressed(ev, Button::Enter) {
            self.screen = Screen::Menu;
        }
        Out::NONE
    }

    #[inline]
    pub(crate) fn draw_about(&self, d: &mut Display) {
        // The about pages' rows follow one another from AboutTitle.
        text::rows_from(d, Line::AboutTitle, 2 * self.sel.min(2));
    }
}

/// `v`'s neighbour among the `n` choices from `first` of `TC_CHOICES`
/// (from the nearest choice if `v` is not one of them).
#[inline(never)]
fn cycle(first: u8, n: u8, v: u8, step: i8) -> u8 {
    let mut i = 0;
    while i + 1 < n && TC_CHOICES.get((first + i) as usize) < v {
        i += 1;
    }
    TC_CHOICES.get((first + wrap(i, step, n)) as usize)
}

/// "15 s per move", "3 min per move", "Until ENTER", "40 in 10m +5s".
#[cfg_attr(target_arch = "avr", optimize(size))]
pub(crate) fn level_text(d: &mut Display, level: u8, tc: &TimeControl) {
    if level == LEVEL_TOURNAMENT {
        if tc.moves == 0 {
            word!(d, All);
        } else {
            d.put_u32(tc.moves as u32, 0, b' ');
        }
        word!(d, In);
        d.put_u32(tc.minutes as u32, 0, b' ');
        word!(d, MinPlus);
        d.put_u32(tc.increment as u32, 0, b' ');
        d.put_char(b's');
        d.pad_row();
        return;
    }
    let s = LEVEL_SECONDS.get(level.min(9) as usize) as u32;
    if s == 0 {
        text::put_part(d, Line::LevelInfinite, 16);
        return;
    }
    if s < 60 {
        d.put_u32(s, 0, b' ');
        word!(d, Sec);
    } else {
        d.put_u32(s / 60, 0, b' ');
        word!(d, Min);
    }
    word!(d, PerMove);
    d.pad_row();
}
