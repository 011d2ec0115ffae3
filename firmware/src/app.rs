//! The chess computer's background loop, target-neutral: it connects the
//! [`Ui`] state machine, the [`Game`], the engine and the serial
//! [`protocol`](crate::protocol) to a [`Platform`] (the AVR board in
//! `main.rs`, a simulated one in the host tests).
//!
//! CP1's architecture: the 25 ms fast task does the I/O (keys, buzzer,
//! clock), the background loop runs the engine. A search blocks the loop;
//! meanwhile its [`SearchHost`] polls the keys (MENU or ENTER = move now,
//! move entry while pondering), the serial line (`stop`, `ponderhit`,
//! `ping`) and the clock, and refreshes the LCD at most every
//! [`REFRESH_MS`].

use crate::chess::Move;
use crate::display::Display;
use crate::engine::{Engine, SearchHost, SearchInfo, SearchLimits, SearchResult};
use crate::game::{Game, LEVEL_TOURNAMENT, SAVE_MAX};
use crate::keys::KeyEvent;
use crate::line::LineAssembler;
use crate::protocol::{self, Deferred, Tx};
use crate::savegame::SaveError;
use crate::tones::Sound;
use crate::ui::{Busy, Job, LoadResult, Out, Request, Ui};

/// LCD refresh period while the engine thinks. The thinking screen's
/// clock counts whole seconds, so twice a second shows every one. Against
/// 250 ms, `bench engine` ran the same 52,030 nodes in 0.52% fewer cycles
/// (495,418,047 against 497,994,032).
pub const REFRESH_MS: u32 = 500;
/// Thinking time of a hint in a tournament game (the user's clock runs).
pub const TOURNAMENT_HINT_MS: u32 = 5_000;

/// What the background loop needs from the board.
pub trait Platform {
    /// Milliseconds since boot (wrapping).
    fn now_ms(&mut self) -> u32;
    /// The next key event.
    fn key(&mut self) -> Option<KeyEvent>;
    /// The next received serial byte.
    fn rx(&mut self) -> Option<u8>;
    /// Sends a serial byte.
    fn tx(&mut self, b: u8);
    /// Sends bytes from RAM (the AVR queues them in one call: see
    /// `hw::serial::write_raw`).
    fn tx_bytes(&mut self, s: &[u8]) {
        for &b in s {
            self.tx(b);
        }
    }
    /// Sends the `n` bytes of a flash string at `p`.
    ///
    /// # Safety
    /// `p..p + n` must be in flash (a `progmem!` static).
    unsafe fn tx_flash(&mut self, p: *const u8, n: usize) {
        for i in 0..n {
            self.tx(crate::progmem::read_flash(p.add(i)));
        }
    }
    fn sound(&mut self, s: Sound);
    /// Shows the frame buffer (sending only what changed) and the cursor.
    fn show(&mut self, d: &mut Display, cursor: Option<(u8, u8)>);
    /// Writes the save record's payload to the EEPROM.
    fn save(&mut self, payload: &[u8]) -> Result<(), SaveError>;
    /// Reads the save record's payload into `buf`; returns its length.
    fn load(&mut self, buf: &mut [u8]) -> Result<usize, SaveError>;
    /// A random number (for the opening book).
    fn random(&mut self) -> u16;
    /// Waits for something to do (keys, serial, the next tick).
    fn idle(&mut self) {}
    /// False only if `key` and `rx` would both give nothing.
    fn input_pending(&mut self) -> bool {
        true
    }
}

/// Everything of the background loop but the game (which is the
/// `CHESS_POSITION` static on the AVR).
pub struct App {
    pub ui: Ui,
    pub engine: Engine,
    pub disp: Display,
    pub line: LineAssembler,
}

/// How a search ended.
struct Outcome {
    result: SearchResult,
    hit: bool,
    pending: Option<KeyEvent>,
}

impl App {
    pub const fn new() -> App {
        App { ui: Ui::new(), engine: Engine::new(), disp: Display::new(), line: LineAssembler::new() }
    }

    /// Initialises an `App` in place, field by field, so no 1.7 KB
    /// temporary (or initial value in flash) is needed.
    ///
    /// # Safety
    /// `p` must be valid for writes of an `App`.
    pub unsafe fn init_in_place(p: *mut App) {
        core::ptr::addr_of_mut!((*p).ui).write(Ui::new());
        init_engine(core::ptr::addr_of_mut!((*p).engine));
        core::ptr::addr_of_mut!((*p).disp).write(Display::new());
        core::ptr::addr_of_mut!((*p).line).write(LineAssembler::new());
    }

    /// Shows the game screen (after the splash).
    pub fn start<P: Platform>(&mut self, game: &mut Game, p: &mut P) {
        let now = p.now_ms();
        self.ui.reset(game);
        self.ui.start_turn(now);
        self.render(game, p);
    }

    /// One pass of the background loop: keys, serial, clock, engine jobs,
    /// display.
    ///
    /// A pass woken by serial bytes that leave a line unfinished leaves the
    /// LCD as it is: they change nothing it shows, and the loop wakes for
    /// every byte (2,080 cycles apart at the 38,400 baud of then, 640 now at
    /// 125,000), so a `go depth 4`
    /// line drew the screen a few times before its search started, about
    /// 4,500 cycles each (`bench engine` 0.13% fewer cycles). The clock is
    /// drawn at the next pass without bytes (the 25 ms tick wakes it).
    #[inline(never)]
    pub fn step<P: Platform>(&mut self, game: &mut Game, p: &mut P) {
        while let Some(ev) = p.key() {
            self.key(game, p, ev);
        }
        let mut rx = false;
        while let Some(b) = p.rx() {
            rx = true;
            let deferred = match self.line.push(b) {
                None => None,
                Some(Ok(text)) => protocol::execute(text, game, &mut self.ui, p),
                Some(Err(e)) => {
                    protocol::line_error(p, e);
                    None
                }
            };
            if let Some(d) = deferred {
                self.deferred(d, game, p);
            }
        }
        let now = p.now_ms();
        self.ui.tick(now);
        if let Some(job) = self.ui.job(game) {
            // Every job ends with the LCD drawn.
            self.run_job(job, game, p);
        }
        if !rx || self.line.pending() == 0 {
            self.render(game, p);
        }
    }

    #[inline(never)]
    fn render<P: Platform>(&mut self, game: &Game, p: &mut P) {
        show_screen(&self.ui, Some(game), &mut self.disp, p);
    }

    #[inline(never)]
    fn out<P: Platform>(&mut self, game: &mut Game, p: &mut P, out: Out) {
        if let Some(s) = out.sound {
            p.sound(s);
        }
        match out.req {
            Request::Save => {
                let o = self.save(game, p);
                self.out(game, p, o);
            }
            Request::Load => {
                let o = self.load(game, p);
                self.out(game, p, o);
            }
            _ => {}
        }
    }

    #[inline(never)]
    fn save<P: Platform>(&mut self, game: &mut Game, p: &mut P) -> Out {
        let mut buf = [0u8; SAVE_MAX];
        let n = game.encode(&mut buf);
        let r = p.save(&buf[..n]);
        self.ui.saved(r)
    }

    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    fn load<P: Platform>(&mut self, game: &mut Game, p: &mut P) -> Out {
        let mut buf = [0u8; SAVE_MAX];
        let r = match p.load(&mut buf) {
            Err(e) => LoadResult::Record(e),
            Ok(n) => match game.decode(&buf[..n]) {
                Ok(()) => LoadResult::Ok,
                Err(_) => LoadResult::Contents,
            },
        };
        if r == LoadResult::Ok {
            self.engine.clear();
            self.ui.start_turn(p.now_ms());
        }
        self.ui.loaded(r, game)
    }

    /// A key while idle.
    #[inline(never)]
    pub fn key<P: Platform>(&mut self, game: &mut Game, p: &mut P, ev: KeyEvent) {
        let now = p.now_ms();
        let out = self.ui.key(ev, now, Some(game));
        self.out(game, p, out);
        self.render(game, p);
    }

    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    fn run_job<P: Platform>(&mut self, job: Job, game: &mut Game, p: &mut P) {
        // One `SearchLimits` and one `Outcome` for every search here: in
        // their own slots each, this frame was the deepest stack's largest
        // (96 B).
        let mut limits = game.limits();
        let mut o;
        match job {
            Job::Hint => {
                if game.level == LEVEL_TOURNAMENT {
                    limits = SearchLimits::movetime(TOURNAMENT_HINT_MS);
                }
                self.ui.start_think(Busy::Hint, p.now_ms());
                self.render(game, p);
                o = self.search(game, p, &limits, false);
                self.ui.hint_found(o.result.best);
                self.resume(game, p, o.pending);
            }
            Job::Play => {
                let random = p.random();
                if let Some(m) = game.book_move(random) {
                    let out = self.ui.computer_moved(game, m, true, p.now_ms());
                    self.out(game, p, out);
                    self.render(game, p);
                    return;
                }
                self.ui.start_think(Busy::Play, p.now_ms());
                self.render(game, p);
                o = self.search(game, p, &limits, false);
                loop {
                    let out = self.ui.computer_moved(game, o.result.best, false, p.now_ms());
                    self.out(game, p, out);
                    self.render(game, p);
                    if o.pending.is_some() {
                        self.resume(game, p, o.pending);
                        return;
                    }
                    let guess = o.result.ponder;
                    if !game.guess || guess.is_none() || game.status().is_over() || !is_legal(game, guess) {
                        return;
                    }
                    // Guess: think on the user's time about the expected reply.
                    game.play(guess);
                    self.ui.start_ponder(guess);
                    limits = game.limits();
                    limits.ponder = true;
                    o = self.search(game, p, &limits, false);
                    if !o.hit {
                        game.take_back();
                        self.ui.ponder_ended();
                        self.render(game, p);
                        self.resume(game, p, o.pending);
                        return;
                    }
                }
            }
        }
    }

    /// Delivers the key that interrupted a search.
    #[inline(never)]
    fn resume<P: Platform>(&mut self, game: &mut Game, p: &mut P, pending: Option<KeyEvent>) {
        if let Some(ev) = pending {
            self.key(game, p, ev);
        } else {
            self.render(game, p);
        }
    }

    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    fn deferred<P: Platform>(&mut self, d: Deferred, game: &mut Game, p: &mut P) {
        match d {
            Deferred::Go(limits) => {
                self.ui.start_think(Busy::Remote, p.now_ms());
                self.render(game, p);
                let o = self.search(game, p, &limits, true);
                protocol::bestmove(p, &o.result);
                self.ui.remote_done();
                self.resume(game, p, o.pending);
            }
            Deferred::Bench(depth) => {
                self.ui.start_think(Busy::Remote, p.now_ms());
                self.render(game, p);
                let mut nodes = 0u32;
                let mut ms = 0u32;
                let mut pending = None;
                for i in 0..protocol::BENCH_POSITIONS {
                    protocol::bench_position(game, i);
                    self.engine.clear();
                    let o = self.search(game, p, &SearchLimits::depth(depth), false);
                    nodes = nodes.wrapping_add(o.result.nodes);
                    ms = ms.wrapping_add(o.result.elapsed_ms);
                    if o.pending.is_some() {
                        pending = o.pending;
                        break;
                    }
                }
                protocol::bench_done(p, game, nodes, ms);
                self.ui.remote_done();
                self.ui.reset(game);
                self.resume(game, p, pending);
            }
        }
    }

    /// Runs the engine on the game's position.
    #[inline(never)]
    fn search<P: Platform>(&mut self, game: &mut Game, p: &mut P, limits: &SearchLimits, remote: bool) -> Outcome {
        let now = p.now_ms();
        let mut host = Host {
            p,
            ui: &mut self.ui,
            disp: &mut self.disp,
            line: &mut self.line,
            remote,
            stop: false,
            hit: false,
            pending: None,
            last_show: now,
        };
        let result = self.engine.search(&mut game.pos, limits, &mut host);
        Outcome { result, hit: host.hit, pending: host.pending }
    }
}

impl Default for App {
    fn default() -> Self {
        App::new()
    }
}

/// Initialises an `Engine` in place without a 1.2 KB `Engine::new()`
/// temporary on the stack (that would be the deepest stack of the whole
/// program, at boot). Every field of the engine is an integer, bool, `Move`
/// or enum with a variant 0, so all-zero bytes are a valid engine, and
/// `Engine::search` sets up all per-search state itself; what remains are
/// the feature switches, on by default. `zeroed_engine_is_a_new_engine`
/// checks the two search alike.
///
/// # Safety
/// `e` must be valid for writes of an `Engine`.
pub unsafe fn init_engine(e: *mut Engine) {
    e.write_bytes(0, 1);
    (*e).lmr = true;
    (*e).null_move = true;
    (*e).pruning = true;
}

/// Draws the UI's screen and shows it: one copy for the loop's renders
/// and the search's refreshes (`game` is `None` while searching).
#[inline(never)]
fn show_screen<P: Platform>(ui: &Ui, game: Option<&Game>, disp: &mut Display, p: &mut P) {
    ui.draw(game, disp);
    p.show(disp, ui.cursor(game));
}

fn is_legal(game: &Game, m: Move) -> bool {
    game.find_move(m.from(), m.to(), m.promotion()) == Some(m)
}

/// The engine's view of the board while it searches.
struct Host<'a, P: Platform> {
    p: &'a mut P,
    ui: &'a mut Ui,
    disp: &'a mut Display,
    line: &'a mut LineAssembler,
    /// A serial `go`: print `info` lines, accept `ponderhit`.
    remote: bool,
    stop: bool,
    hit: bool,
    /// The key that interrupted the search, to deliver afterwards.
    pending: Option<KeyEvent>,
    last_show: u32,
}

impl<P: Platform> Host<'_, P> {
    /// The keys and serial bytes that came in since the last poll; true
    /// if a key came (the LCD is then refreshed). Out of
    /// `stop_requested`, so that the LCD's refresh has not this frame
    /// under it (the deepest stack, 25 B less).
    #[inline(never)]
    fn events(&mut self, now: u32) -> bool {
        let mut show = false;
        while self.pending.is_none() {
            let Some(ev) = self.p.key() else { break };
            let out = self.ui.key_while_searching(ev, now);
            if let Some(s) = out.sound {
                self.p.sound(s);
            }
            match out.req {
                Request::MoveNow => self.stop = true,
                Request::PonderHit => self.hit = true,
                Request::Interrupt => {
                    self.stop = true;
                    self.pending = Some(ev);
                }
                _ => {}
            }
            show = true;
        }
        while let Some(b) = self.p.rx() {
            match self.line.push(b) {
                None => {}
                Some(Ok(text)) => match protocol::busy_command(text) {
                    protocol::Busy::Stop => self.stop = true,
                    protocol::Busy::PonderHit => {
                        if self.remote {
                            self.hit = true;
                        }
                    }
                    protocol::Busy::Ping => Tx(self.p).line(crate::flash_str!(b"pong")),
                    protocol::Busy::Refused => Tx(self.p).line(crate::flash_str!(b"error busy")),
                },
                Some(Err(e)) => protocol::line_error(self.p, e),
            }
        }
        show
    }

    /// The input and the refresh of a poll that found either due.
    #[inline(never)]
    fn serve(&mut self, now: u32, late: bool) -> bool {
        if self.events(now) || late {
            self.refresh(now);
        }
        self.stop
    }

    fn refresh(&mut self, now: u32) {
        self.last_show = now;
        self.ui.tick(now);
        show_screen(self.ui, None, self.disp, self.p);
    }
}

impl<P: Platform> SearchHost for Host<'_, P> {
    fn now_ms(&mut self) -> u32 {
        self.p.now_ms()
    }

    fn stop_requested(&mut self) -> bool {
        let now = self.p.now_ms();
        self.poll(now)
    }

    /// Keys, serial bytes, the LCD's refresh. Nearly every poll finds no
    /// input and no refresh due: that test alone, with no call and so no
    /// register saved, and the rest in [`Host::serve`]. It was one
    /// function of 86 cycles a poll; now about 32 (`bench engine` 0.06%
    /// fewer cycles).
    fn poll(&mut self, now: u32) -> bool {
        // 16 bits of the clock suffice (polls are milliseconds apart, not
        // 65 s): no 32-bit subtraction, and no register to save.
        let late = (now as u16).wrapping_sub(self.last_show as u16) >= REFRESH_MS as u16;
        if late || self.p.input_pending() {
            return self.serve(now, late);
        }
        self.stop
    }

    fn ponder_hit(&mut self) -> bool {
        self.hit
    }

    /// The LCD shows the report at the next refresh, at most every
    /// [`REFRESH_MS`] as the polls do: each new best move at the root
    /// redrew it (207 redraws in `bench engine`, 8 a position, about
    /// 6,000 cycles each; now 0.41% fewer cycles, +48 B).
    #[cfg_attr(target_arch = "avr", optimize(size))]
    fn report(&mut self, info: &SearchInfo) {
        self.ui.report(info);
        if self.remote {
            protocol::info(self.p, info);
        }
        let now = self.p.now_ms();
        if now.wrapping_sub(self.last_show) >= REFRESH_MS {
            self.refresh(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::Position;

    struct Clockless;
    impl SearchHost for Clockless {
        fn now_ms(&mut self) -> u32 {
            0
        }
        fn stop_requested(&mut self) -> bool {
            false
        }
    }

    #[test]
    fn zeroed_engine_is_a_new_engine() {
        let fen = b"r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8";
        let mut a = Box::new(Engine::new());
        let mut b: Box<core::mem::MaybeUninit<Engine>> = Box::new(core::mem::MaybeUninit::uninit());
        let b = unsafe {
            init_engine(b.as_mut_ptr());
            &mut *b.as_mut_ptr()
        };
        for _ in 0..2 {
            let mut p = Position::from_fen(fen).unwrap();
            let ra = a.search(&mut p, &SearchLimits::depth(4), &mut Clockless);
            let rb = b.search(&mut p, &SearchLimits::depth(4), &mut Clockless);
            assert_eq!(ra, rb);
        }
    }
}
