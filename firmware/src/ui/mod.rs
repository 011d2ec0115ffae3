//! The user interface: a pure state machine.
//!
//! Inputs: key events ([`Ui::key`]), the clock ([`Ui::tick`]) and the
//! engine's progress and results ([`Ui::report`], [`Ui::computer_moved`],
//! [`Ui::hint_found`], ...). Outputs: the 16x2 [`Display`] contents
//! ([`Ui::draw`]), the LCD cursor ([`Ui::cursor`]), sounds and requests to the
//! driver ([`Out`]), and the next engine job ([`Ui::job`]). Nothing here
//! touches hardware, so whole games are host-tested (`ui/tests.rs`).
//!
//! While the engine searches, the driver still feeds keys in, but without
//! the game (the engine is using the position): `game` is `None`. A key
//! that needs the game then answers [`Request::Interrupt`]: the driver stops
//! the search and delivers the same key again afterwards.
//!
//! Screens (one file each): [`play`] (the game and move entry), [`menu`]
//! (the parameter list, Level, Guess, Back, Swap, New, About, Save/Load
//! feedback), [`verify`], [`analyze`] and [`think`] (the thinking display).

mod analyze;
mod menu;
mod play;
mod text;
mod think;
mod verify;

#[cfg(test)]
mod tests;

use crate::board::Button;
use crate::chess::Move;
use crate::display::Display;
use crate::engine::Score;
use crate::game::{Game, TimeControl};
use crate::keys::{KeyEvent, KeyKind};
use crate::savegame::SaveError;
use crate::tones::Sound;

pub use menu::MenuItem;
pub use text::Msg;

/// How long a message stays on row 1, in milliseconds.
pub const MSG_MS: u32 = 2_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// The game: last move on row 0, move entry (or the result) on row 1.
    Play,
    Menu,
    Level,
    /// Tournament time control editor (moves, minutes, increment).
    Tournament,
    Verify,
    Analyze,
    /// Square editor of Analyze.
    Edit,
    /// "New game?" confirmation.
    ConfirmNew,
    About,
    /// The computer is thinking (its move, a hint, or a serial `go`).
    Think,
}

/// What the engine is doing for the UI.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Busy {
    Idle,
    /// The computer's move.
    Play,
    Hint,
    /// Thinking on the user's time about the guessed reply.
    Ponder,
    /// A search ordered over the serial line.
    Remote,
}

/// A search the UI wants the driver to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Job {
    /// The computer's move (book first).
    Play,
    /// A hint for the user.
    Hint,
}

/// What the driver must do after an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    None,
    /// Stop the search, then deliver the same key again.
    Interrupt,
    /// Stop the search and play (or show) its best move now.
    MoveNow,
    /// The user played the guessed move: the ponder search goes on timed.
    PonderHit,
    /// Save the game to the EEPROM and call [`Ui::saved`].
    Save,
    /// Load the game from the EEPROM and call [`Ui::loaded`].
    Load,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Out {
    pub sound: Option<Sound>,
    pub req: Request,
}

impl Out {
    pub const NONE: Out = Out { sound: None, req: Request::None };
    pub const fn sound(s: Sound) -> Out {
        Out { sound: Some(s), req: Request::None }
    }
    pub const fn req(r: Request) -> Out {
        Out { sound: None, req: r }
    }
}

/// Result of loading the saved game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadResult {
    Ok,
    /// The EEPROM record is bad (blank, corrupt, other version).
    Record(SaveError),
    /// The record is intact but its game makes no sense.
    Contents,
}

/// The thinking display's data.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ThinkInfo {
    pub depth: u8,
    pub score: Score,
    pub best: Move,
    pub start_ms: u32,
    pub now_ms: u32,
}

/// State of the Analyze editor: a nibble-packed board, side and castling.
#[derive(Clone, Copy)]
pub(crate) struct Setup {
    pub board: [u8; 32],
    pub white_to_move: bool,
    pub castling: u8,
    /// Selected square (0..=63) and piece (0..=12) of the square editor.
    pub square: u8,
    pub piece: u8,
}

#[repr(C)]
pub struct Ui {
    pub(crate) screen: Screen,
    pub(crate) busy: Busy,
    /// Move entry: from file, from rank, to file, to rank (0..=7), promotion (0..=3 = q r b n).
    pub(crate) entry: [u8; 5],
    /// Field of the entry (or of the Tournament / Edit editors) being edited.
    pub(crate) field: u8,
    pub(crate) menu: u8,
    /// Scroll position (Verify, About) or selected line (Analyze, Level).
    pub(crate) sel: u8,
    pub(crate) msg: Option<Msg>,
    pub(crate) msg_until: u32,
    pub(crate) hint_wanted: bool,
    /// The guessed reply while pondering.
    pub(crate) ponder: Move,
    /// The computer's last move came from the book.
    pub(crate) book: bool,
    /// Time of the last tick (for message timeouts).
    pub(crate) now: u32,
    /// When the side to move started thinking (for the tournament clocks).
    pub(crate) turn_start: u32,
    /// When the user played the guessed move during pondering.
    pub(crate) ponder_hit_at: Option<u32>,
    /// The user enters a move for White (sets the entry's default ranks).
    pub(crate) user_white: bool,
    /// The last hint, shown on row 0 until the next move.
    pub(crate) hint: Move,
    /// The time control being edited.
    pub(crate) tc_edit: TimeControl,
    // The big members last: the AVR reaches fields within 63 bytes of the
    // start with one instruction.
    pub(crate) think: ThinkInfo,
    pub(crate) setup: Setup,
}

impl Ui {
    pub const fn new() -> Ui {
        Ui {
            screen: Screen::Play,
            busy: Busy::Idle,
            entry: [4, 1, 4, 3, 0],
            field: 0,
            menu: 0,
            sel: 0,
            msg: None,
            msg_until: 0,
            hint_wanted: false,
            ponder: Move::NONE,
            book: false,
            think: ThinkInfo { depth: 0, score: Score::Cp(0), best: Move::NONE, start_ms: 0, now_ms: 0 },
            setup: Setup { board: [0; 32], white_to_move: true, castling: 0, square: 0, piece: 0 },
            now: 0,
            turn_start: 0,
            ponder_hit_at: None,
            user_white: true,
            hint: Move::NONE,
            tc_edit: TimeControl::DEFAULT,
        }
    }

    pub fn screen(&self) -> Screen {
        self.screen
    }

    pub fn busy(&self) -> Busy {
        self.busy
    }

    /// The message on row 1, if any.
    pub fn message(&self) -> Option<Msg> {
        self.msg
    }

    /// Back to the game screen (after a serial command changed the game).
    #[inline(never)]
    pub fn reset(&mut self, game: &Game) {
        self.screen = Screen::Play;
        self.msg = None;
        self.hint_wanted = false;
        self.book = false;
        self.reset_entry(game);
    }

    /// Shows `m` on row 1 for [`MSG_MS`].
    #[inline(never)]
    pub(crate) fn show(&mut self, m: Msg) {
        self.msg = Some(m);
        self.msg_until = self.now.wrapping_add(MSG_MS);
    }

    /// A key event. `game` is `None` while the engine searches.
    ///
    /// The handlers called only from here (and the app's one caller) are
    /// `#[inline]`, not `#[inline(never)]`: in the app's `key`, one frame
    /// and no call each (with `saved`, `loaded`, `hint_found`,
    /// `last_move`, `computer_to_move` and `load_setup` likewise, 248 B
    /// less). The `draw_*` called from `draw` alike were 132 B less, but
    /// `draw` is under the search's refresh: its stack bound +18 B.
    pub fn key(&mut self, ev: KeyEvent, now: u32, game: Option<&mut Game>) -> Out {
        let Some(game) = game else {
            return self.key_while_searching(ev, now);
        };
        self.now = now;
        // On the game screen any key dismisses a message (and does nothing
        // else); elsewhere the message is feedback and the key acts.
        if self.msg.is_some() && self.screen == Screen::Play {
            self.msg = None;
            return Out::NONE;
        }
        self.msg = None;
        match self.screen {
            Screen::Play | Screen::Think => self.key_play(ev, game),
            Screen::Menu => self.key_menu(ev, game),
            Screen::Level => self.key_level(ev, game),
            Screen::Tournament => self.key_tournament(ev, game),
            Screen::Verify => self.key_verify(ev, game),
            Screen::Analyze => self.key_analyze(ev, game),
            Screen::Edit => self.key_edit(ev),
            Screen::ConfirmNew => self.key_confirm_new(ev, game),
            Screen::About => self.key_about(ev),
        }
    }

    /// A key while the engine searches (the game is borrowed by it). The
    /// search host calls this directly rather than [`Ui::key`], so the
    /// stack analysis of `cargo xtask ram` sees that no game screen (with
    /// its deep FEN and set-up paths) can run on top of a search.
    #[inline(never)]
    pub fn key_while_searching(&mut self, ev: KeyEvent, now: u32) -> Out {
        self.now = now;
        self.key_busy(ev)
    }

    /// Keys during a search: MENU/ENTER move now while the computer thinks;
    /// move entry goes on while pondering.
    fn key_busy(&mut self, ev: KeyEvent) -> Out {
        match self.busy {
            Busy::Ponder if self.screen == Screen::Play => self.key_ponder(ev),
            _ if self.screen == Screen::Think => match ev.key {
                Button::Menu | Button::Enter => Out::req(Request::MoveNow),
                _ => Out::NONE,
            },
            _ => Out::req(Request::Interrupt),
        }
    }

    /// The clock: expires messages. Returns true if the screen changed.
    pub fn tick(&mut self, now: u32) -> bool {
        self.now = now;
        self.think.now_ms = now;
        if self.msg.is_some() && now.wrapping_sub(self.msg_until) < u32::MAX / 2 {
            self.msg = None;
            return true;
        }
        false
    }

    /// The search the UI wants now, if any (call when idle).
    pub fn job(&mut self, game: &Game) -> Option<Job> {
        if self.busy != Busy::Idle || self.screen != Screen::Play {
            return None;
        }
        if self.hint_wanted {
            self.hint_wanted = false;
            if !game.status().is_over() {
                return Some(Job::Hint);
            }
        }
        if game.computer_to_move() {
            return Some(Job::Play);
        }
        None
    }

    /// Renders the current screen. With `game` `None` (during a search)
    /// only what does not need the position is redrawn.
    pub fn draw(&self, game: Option<&Game>, d: &mut Display) {
        match self.screen {
            Screen::Play => self.draw_play(game, d),
            Screen::Think => self.draw_think(d),
            Screen::Menu => {
                if let Some(g) = game {
                    self.draw_menu(g, d)
                }
            }
            Screen::Level | Screen::Tournament => {
                if let Some(g) = game {
                    self.draw_level(g, d)
                }
            }
            Screen::Verify => {
                if let Some(g) = game {
                    self.draw_verify(g, d)
                }
            }
            Screen::Analyze | Screen::Edit => self.draw_analyze(d),
            Screen::ConfirmNew => {
                text::row(d, 0, text::Line::NewGame);
                text::row(d, 1, text::Line::EnterYesMenuNo);
            }
            Screen::About => self.draw_about(d),
        }
        if let Some(m) = self.msg {
            text::msg_row(d, m);
        }
    }

    /// Where the LCD's blinking cursor goes (the field being edited).
    pub fn cursor(&self, game: Option<&Game>) -> Option<(u8, u8)> {
        if self.msg.is_some() {
            return None;
        }
        match self.screen {
            Screen::Play => self.play_cursor(game),
            Screen::Tournament => Some((1, 2 + 5 * self.field)),
            Screen::Edit if self.field < 2 => Some((0, 7 + self.field)),
            Screen::Edit => Some((1, 5)),
            _ => None,
        }
    }

    /// The driver saved the game (or failed to).
    #[inline]
    pub fn saved(&mut self, r: Result<(), SaveError>) -> Out {
        match r {
            Ok(()) => {
                self.show(Msg::Saved);
                Out::sound(Sound::MoveMade)
            }
            Err(_) => {
                self.show(Msg::SaveFailed);
                Out::sound(Sound::Error)
            }
        }
    }

    /// The driver loaded the game (or failed to: the game is unchanged).
    #[inline]
    pub fn loaded(&mut self, r: LoadResult, game: &Game) -> Out {
        match r {
            LoadResult::Ok => {
                self.reset(game);
                self.show(Msg::Loaded);
                Out::sound(Sound::MoveMade)
            }
            LoadResult::Record(SaveError::Blank) => {
                self.show(Msg::NoSave);
                Out::sound(Sound::Error)
            }
            _ => {
                self.show(Msg::BadSave);
                Out::sound(Sound::Error)
            }
        }
    }
}

/// The splash screen: "Chess Prodigy" and the version, centred. From the
/// rows in flash (the about page's title is the first), not two strings
/// of its own centred at boot (104 B less).
pub fn draw_splash(d: &mut Display) {
    text::row(d, 0, text::Line::AboutTitle);
    text::row(d, 1, text::Line::Splash);
}

impl Default for Ui {
    fn default() -> Self {
        Ui::new()
    }
}

/// UP/DOWN as +1/-1 (auto-repeat included); 0 for other keys.
pub(crate) fn updown(ev: KeyEvent) -> i8 {
    match (ev.key, ev.kind) {
        (Button::Up, KeyKind::Press | KeyKind::Repeat) => 1,
        (Button::Down, KeyKind::Press | KeyKind::Repeat) => -1,
        _ => 0,
    }
}

/// `v + step` wrapped into `0..n`.
#[inline(never)]
pub(crate) fn wrap(v: u8, step: i8, n: u8) -> u8 {
    let v = v.wrapping_add(step as u8);
    if v == 255 {
        n - 1
    } else if v >= n {
        0
    } else {
        v
    }
}

/// A short press of `b` (MENU and ENTER report a short press on release).
pub(crate) fn pressed(ev: KeyEvent, b: Button) -> bool {
    ev.key == b && ev.kind == KeyKind::Press
}
