//! The thinking display.
//!
//! ```text
//! D 6  +0.35 e2e4      depth, score (the thinking side's view), best move
//! Thinking     0:12    what the search is for, time spent
//! ```
//!
//! MENU or ENTER: move now (the best move so far is played or shown).

use super::text::{self, Line};
use super::{Busy, Screen, ThinkInfo, Ui};
use crate::chess::Move;
use crate::display::Display;
use crate::engine::{Score, SearchInfo};

impl Ui {
    /// A search starts at `now` for `kind`.
    #[inline(never)]
    pub fn start_think(&mut self, kind: Busy, now: u32) {
        self.busy = kind;
        self.screen = Screen::Think;
        self.msg = None;
        self.think = ThinkInfo { depth: 0, score: Score::Cp(0), best: Move::NONE, start_ms: now, now_ms: now };
    }

    /// Progress from the engine.
    #[inline(never)]
    pub fn report(&mut self, info: &SearchInfo) {
        self.think.depth = info.depth;
        self.think.score = info.score;
        if let Some(&m) = info.pv.first() {
            self.think.best = m;
        }
    }

    /// A search ordered over the serial line ended.
    pub fn remote_done(&mut self) {
        self.busy = Busy::Idle;
        self.screen = Screen::Play;
    }

    #[inline(never)]
    pub(crate) fn draw_think(&self, d: &mut Display) {
        let t = &self.think;
        d.clear_row(0);
        if t.depth > 0 {
            d.put_char(b'D');
            d.put_u32(t.depth as u32, 0, b' ');
            d.set_cursor(0, 4);
            text::put_score(d, t.score);
            d.set_cursor(0, 11);
            text::put_move(d, t.best);
        }
        let label = match self.busy {
            Busy::Hint => Line::Hint,
            Busy::Remote => Line::Analysing,
            _ => Line::Thinking,
        };
        text::row(d, 1, label);
        d.set_cursor(1, 11);
        text::put_clock(d, t.now_ms.wrapping_sub(t.start_ms));
    }
}
