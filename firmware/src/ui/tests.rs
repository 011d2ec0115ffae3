//! Host tests of the whole background loop: the real `App` (UI, game,
//! engine, protocol) on a simulated platform with a fake clock, keys,
//! serial line and EEPROM.

use crate::app::{App, Platform};
use crate::board::Button;
use crate::chess::{Position, START_FEN};
use crate::display::Display;
use crate::game::{Game, Opponent};
use crate::keys::{KeyEvent, KeyKind};
use crate::savegame::{self, SaveError};
use crate::tones::Sound;
use crate::ui::{Msg, Screen};
use std::collections::VecDeque;

struct Sim {
    now: u32,
    keys: VecDeque<KeyEvent>,
    /// Keys that arrive at a given time (during a search).
    later: VecDeque<(u32, KeyEvent)>,
    rx: VecDeque<u8>,
    tx: Vec<u8>,
    sounds: Vec<Sound>,
    rows: [String; 2],
    cursor: Option<(u8, u8)>,
    eeprom: Vec<u8>,
    /// Calls of `show` (LCD refreshes).
    shows: u32,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            now: 0,
            keys: VecDeque::new(),
            later: VecDeque::new(),
            rx: VecDeque::new(),
            tx: vec![],
            sounds: vec![],
            rows: Default::default(),
            cursor: None,
            eeprom: vec![0xFF; 256],
            shows: 0,
        }
    }
}

impl Platform for Sim {
    fn now_ms(&mut self) -> u32 {
        // Time passes as the program looks at the clock: a search at
        // level 0 (2 s) polls a couple of thousand times.
        self.now += 1;
        self.now
    }
    fn key(&mut self) -> Option<KeyEvent> {
        if let Some(&(at, ev)) = self.later.front() {
            if self.now >= at {
                self.later.pop_front();
                return Some(ev);
            }
        }
        self.keys.pop_front()
    }
    fn rx(&mut self) -> Option<u8> {
        self.rx.pop_front()
    }
    fn tx(&mut self, b: u8) {
        self.tx.push(b);
    }
    fn sound(&mut self, s: Sound) {
        self.sounds.push(s);
    }
    fn show(&mut self, d: &mut Display, cursor: Option<(u8, u8)>) {
        for r in 0..2 {
            self.rows[r] = String::from_utf8(d.row(r as u8).to_vec()).unwrap();
        }
        self.cursor = cursor;
        self.shows += 1;
    }
    fn save(&mut self, payload: &[u8]) -> Result<(), SaveError> {
        let n = savegame::encode(payload, &mut self.eeprom)?;
        assert!(n <= self.eeprom.len());
        Ok(())
    }
    fn load(&mut self, buf: &mut [u8]) -> Result<usize, SaveError> {
        let p = savegame::decode(&self.eeprom)?;
        if p.len() > buf.len() {
            return Err(SaveError::BadLength);
        }
        buf[..p.len()].copy_from_slice(p);
        Ok(p.len())
    }
    fn random(&mut self) -> u16 {
        0x1234
    }
}

struct Rig {
    app: Box<App>,
    game: Box<Game>,
    sim: Sim,
}

impl Rig {
    fn new() -> Rig {
        let mut game = Box::new(Game::zeroed());
        game.init();
        game.level = 0;
        let mut r = Rig { app: Box::new(App::new()), game, sim: Sim::new() };
        r.app.start(&mut r.game, &mut r.sim);
        r
    }

    fn press(&mut self, b: Button) {
        self.event(b, KeyKind::Press);
    }

    fn event(&mut self, b: Button, kind: KeyKind) {
        self.sim.keys.push_back(KeyEvent { key: b, kind });
        self.app.step(&mut self.game, &mut self.sim);
    }

    fn keys(&mut self, seq: &str) {
        for k in seq.split_whitespace() {
            let b = match k {
                "M" => Button::Menu,
                "U" => Button::Up,
                "D" => Button::Down,
                "E" => Button::Enter,
                _ => panic!("key {k}"),
            };
            self.press(b);
        }
    }

    /// Enters a move with the keys from whatever the entry shows.
    fn enter_move(&mut self, mv: &str) {
        let b = mv.as_bytes();
        let targets = [b[0] - b'a', b[1] - b'1', b[2] - b'a', b[3] - b'1'];
        for (f, &want) in targets.iter().enumerate() {
            let have = self.app.ui.entry[f];
            let ups = (want + 8 - have) % 8;
            for _ in 0..ups {
                self.press(Button::Up);
            }
            assert_eq!(self.app.ui.entry[f], want, "field {f}");
            self.press(Button::Enter);
        }
    }

    fn row(&self, r: usize) -> &str {
        self.sim.rows[r].as_str()
    }

    fn fen(&self) -> String {
        let mut b = [0u8; 100];
        let n = self.game.pos.write_fen(&mut b).unwrap();
        String::from_utf8(b[..n].to_vec()).unwrap()
    }

    fn serial(&mut self, line: &str) -> String {
        self.sim.tx.clear();
        self.sim.rx.extend(line.bytes());
        self.sim.rx.push_back(b'\n');
        self.app.step(&mut self.game, &mut self.sim);
        String::from_utf8(std::mem::take(&mut self.sim.tx)).unwrap()
    }

    /// Opens the menu on item `i` (from the game screen).
    fn menu(&mut self, i: u8) {
        assert_eq!(self.app.ui.screen(), Screen::Play);
        self.press(Button::Menu);
        assert_eq!(self.app.ui.screen(), Screen::Menu);
        while self.app.ui.menu != i {
            self.press(Button::Down);
        }
    }
}

#[test]
fn a_game_fragment_with_takeback_level_verify_analyze_save_and_load() {
    let mut r = Rig::new();
    assert_eq!(r.row(0), "White to move   ");
    assert_eq!(r.row(1), "Your move: e... ");
    assert_eq!(r.sim.cursor, Some((1, 11)));

    // e2e4: the entry starts on e2; the destination one rank up.
    r.keys("E E");
    assert_eq!(r.sim.cursor, Some((1, 13)));
    assert_eq!(r.row(1), "Your move: e2e. ");
    r.keys("E U E");
    // The computer answered (from the book on the host).
    assert!(r.row(0).starts_with("1..."), "{:?}", r.sim.rows);
    assert_eq!(r.game.takebacks(), 2);
    assert!(r.row(0).contains("Book"), "{:?}", r.sim.rows);
    let reply = r.game.last_move();

    // An illegal move is refused with a message and a low beep.
    let before = r.fen();
    r.enter_move("e4e6");
    assert_eq!(r.row(1), "Illegal move    ");
    assert_eq!(r.sim.sounds.last(), Some(&Sound::Error));
    assert_eq!(r.fen(), before);
    r.press(Button::Up); // any key dismisses the message
    assert_eq!(r.app.ui.message(), None);

    // A second move, searched (d2d4 leaves most books at some point;
    // either way the computer answers).
    r.enter_move("d2d4");
    assert_eq!(r.game.takebacks(), 4);
    assert!(r.game.pos.side_to_move() == crate::chess::Color::White);

    // Back: takes back the computer's reply and the user's move.
    r.menu(4);
    assert!(r.row(1).starts_with("Take back: 4"), "{:?}", r.sim.rows);
    r.press(Button::Enter);
    assert_eq!(r.game.takebacks(), 2);
    assert_eq!(r.game.last_move(), reply);
    r.press(Button::Enter);
    assert_eq!(r.game.takebacks(), 0);
    assert_eq!(r.fen(), START_FEN);
    r.press(Button::Enter);
    assert_eq!(r.app.ui.message(), Some(Msg::NothingBack));
    r.press(Button::Menu);
    assert_eq!(r.app.ui.screen(), Screen::Play);

    // Level: 0 -> 3 (30 s per move).
    r.menu(2);
    assert_eq!(r.row(1), "2 s per move    ");
    r.press(Button::Enter);
    assert_eq!(r.app.ui.screen(), Screen::Level);
    r.keys("U U U");
    assert_eq!(r.row(0).trim_end(), "Level 3");
    assert_eq!(r.row(1), "30 s per move   ");
    r.press(Button::Enter);
    assert_eq!(r.game.level, 3);
    assert_eq!(r.app.ui.screen(), Screen::Menu);

    // Verify: the men, four per row, scrolling.
    r.press(Button::Down); // Guess
    r.keys("D D D"); // Back, Swap, Verify
    r.press(Button::Enter);
    assert_eq!(r.row(0), "Ke1 Qd1 Ra1 Rh1 ");
    assert_eq!(r.row(1), "Bc1 Bf1 Nb1 Ng1 ");
    r.keys("D D D");
    assert_eq!(r.row(0), "Pe2 Pf2 Pg2 Ph2 ");
    assert_eq!(r.row(1), "ke8 qd8 ra8 rh8 ");
    r.press(Button::Enter);
    assert_eq!(r.app.ui.screen(), Screen::Menu);

    // Save the start position with level 3.
    r.menu_from_menu(8);
    r.press(Button::Enter);
    assert_eq!(r.app.ui.message(), Some(Msg::Saved));

    // Analyze: clear, put K e1 and k e8 and a white rook a1, Black to move.
    r.menu_from_menu(7);
    r.press(Button::Enter);
    assert_eq!(r.app.ui.screen(), Screen::Analyze);
    r.keys("D E"); // Clear board
    assert_eq!(r.app.ui.message(), Some(Msg::Cleared));
    r.keys("U E"); // Alter squares, on e1
    assert_eq!(r.app.ui.screen(), Screen::Edit);
    assert!(r.row(0).starts_with("Square e1: --"), "{:?}", r.sim.rows);
    r.keys("E E"); // file e, rank 1 -> piece field
    r.keys("U U U U U U E"); // wK
    assert!(r.row(0).starts_with("Square e1: wK"), "{:?}", r.sim.rows);
    r.keys("E"); // file e
    r.keys("D E"); // rank 8
    r.keys("D E"); // bK (the piece wraps down from empty)
    assert!(r.row(0).starts_with("Square e8: bK"), "{:?}", r.sim.rows);
    r.keys("D D D D E"); // file a
    r.keys("U E"); // rank 1
    r.keys("U U U U E"); // wR
    r.press(Button::Menu); // back to the list
    assert_eq!(r.app.ui.screen(), Screen::Analyze);
    r.keys("D D E"); // Side: Black
    assert_eq!(r.row(1), "Side: Black     ");
    r.keys("D E"); // Done
    assert_eq!(r.app.ui.screen(), Screen::Play);
    // Black is the computer: it moved at once, from the set-up position.
    assert_eq!(r.game.takebacks(), 1);
    assert!(r.game.take_back());
    assert_eq!(r.fen(), "4k3/8/8/8/8/8/8/R3K3 b Q - 0 1");

    // Load the saved game back.
    r.menu(9);
    r.press(Button::Enter);
    assert_eq!(r.app.ui.message(), Some(Msg::Loaded));
    assert_eq!(r.fen(), START_FEN);
    assert_eq!(r.game.level, 3);
}

impl Rig {
    fn menu_from_menu(&mut self, i: u8) {
        assert_eq!(self.app.ui.screen(), Screen::Menu);
        while self.app.ui.menu != i {
            self.press(Button::Down);
        }
    }
}

#[test]
fn blank_or_corrupt_eeprom_is_reported_and_not_loaded() {
    let mut r = Rig::new();
    r.enter_move("e2e4");
    let fen = r.fen();
    r.menu(9);
    r.press(Button::Enter);
    assert_eq!(r.app.ui.message(), Some(Msg::NoSave));
    assert_eq!(r.row(1), "No saved game   ");
    assert_eq!(r.fen(), fen);
    // A save with one bit flipped.
    r.press(Button::Down); // New
    r.press(Button::Up); // Load
    r.press(Button::Up); // Save
    r.press(Button::Enter);
    assert_eq!(r.app.ui.message(), Some(Msg::Saved));
    r.sim.eeprom[10] ^= 4;
    r.press(Button::Down);
    r.press(Button::Enter);
    assert_eq!(r.app.ui.message(), Some(Msg::BadSave));
    assert_eq!(r.fen(), fen);
}

#[test]
fn promotion_asks_for_the_piece_and_new_game_confirms() {
    let mut r = Rig::new();
    r.serial("fen 8/4P3/8/8/8/k7/8/4K3 w - - 0 1");
    assert_eq!(r.game.computer, Opponent::None);
    r.enter_move("e7e8");
    // A fifth field for the piece: q r b n.
    assert_eq!(r.row(1), "Your move: e7e8q");
    assert_eq!(r.sim.cursor, Some((1, 15)));
    r.keys("D D E"); // q -> n -> b? (DOWN wraps: q, n, b)
    assert_eq!(r.fen(), "4B3/8/8/8/8/k7/8/4K3 b - - 0 1");
    // New game needs a confirmation.
    r.menu(10);
    r.press(Button::Enter);
    assert_eq!(r.row(0), "New game?       ");
    r.press(Button::Menu);
    assert_eq!(r.app.ui.screen(), Screen::Menu);
    r.press(Button::Enter);
    r.press(Button::Enter);
    assert_eq!(r.fen(), START_FEN);
    assert_eq!(r.game.computer, Opponent::Black);
}

#[test]
fn mate_and_draws_are_announced() {
    let mut r = Rig::new();
    // Fool's mate: the user plays both sides.
    r.serial("moves f2f3 e7e5 g2g4");
    r.enter_move("d8h4");
    assert_eq!(r.row(0), "2...d8h4#       ");
    assert_eq!(r.row(1), "Checkmate    0-1");
    assert_eq!(r.sim.sounds.last(), Some(&Sound::GameEnd));
    // Any key opens the menu on New.
    r.press(Button::Enter);
    assert_eq!(r.app.ui.screen(), Screen::Menu);
    assert_eq!(r.row(0), ">New       11/12");
    r.press(Button::Menu);
    for (fen, row) in [
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "Stalemate    1/2"),
        ("8/8/8/8/8/2k5/8/2K2B2 w - - 0 1", "Draw: material  "),
        ("8/8/8/8/8/2k5/8/R1K5 w - - 100 80", "Draw: 50 moves  "),
    ] {
        r.serial(&format!("fen {fen}"));
        assert_eq!(r.row(1), row, "{fen}");
    }
    // Black mated (a row of arithmetic in `draw_play`): "1-0".
    r.serial("fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    assert_eq!(r.row(0), "Black to move   ");
    assert_eq!(r.row(1), "Checkmate    1-0");
    r.serial("fen 8/8/8/8/8/2k5/8/R1K5 w - - 0 1");
    r.serial("moves a1a2 c3b3 a2a1 b3c3 a1a2 c3b3 a2a1 b3c3");
    assert_eq!(r.row(1), "Draw: repetition");
    // Check is shown with the move.
    r.serial("fen 4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    r.enter_move("a1a8");
    assert_eq!(r.row(0), "1.a1a8+         ");
}

#[test]
fn hint_swap_and_move_now() {
    let mut r = Rig::new();
    r.game.computer = Opponent::None;
    r.menu(1);
    r.press(Button::Enter);
    // The hint search ran; the move is shown and put into the entry.
    assert!(r.row(0).starts_with("Hint "), "{:?}", r.sim.rows);
    let hint = r.app.ui.hint;
    assert!(!hint.is_none());
    r.keys("E E E E");
    assert_eq!(r.game.last_move(), hint);
    // Swap: the computer takes the side to move (Black) and plays.
    r.menu(5);
    r.press(Button::Enter);
    assert_eq!(r.game.computer, Opponent::Black);
    assert_eq!(r.game.takebacks(), 2);
}

#[test]
fn keys_during_a_search_move_now_and_pondering_converts_on_a_hit() {
    // MENU while thinking: move now (the UI without the game).
    let mut ui = crate::ui::Ui::new();
    ui.start_think(crate::ui::Busy::Play, 0);
    let ev = KeyEvent { key: Button::Menu, kind: KeyKind::Press };
    assert_eq!(ui.key(ev, 5, None).req, crate::ui::Request::MoveNow);
    // Pondering on e7e5: typing goes on, the guess is a hit.
    let mut game = Game::default();
    game.play(game.pos.parse_coord(b"e2e4").unwrap());
    let guess = game.pos.parse_coord(b"e7e5").unwrap();
    let mut ui = crate::ui::Ui::new();
    ui.reset(&game);
    ui.start_ponder(guess);
    let k = |b| KeyEvent { key: b, kind: KeyKind::Press };
    assert_eq!(ui.entry[1], 6, "Black's entry starts on rank 7");
    // e7, then e6 by default; DOWN makes it e5.
    for b in [Button::Enter, Button::Enter, Button::Enter, Button::Down] {
        assert_eq!(ui.key(k(b), 10, None).req, crate::ui::Request::None);
    }
    assert_eq!(&ui.entry[..4], &[4, 6, 4, 4]);
    assert_eq!(ui.key(k(Button::Enter), 12, None).req, crate::ui::Request::PonderHit);
    assert_eq!(ui.screen(), Screen::Think);
    // A miss interrupts (the driver takes the guess back and redelivers).
    let mut ui = crate::ui::Ui::new();
    ui.reset(&game);
    ui.start_ponder(guess);
    for _ in 0..3 {
        ui.key(k(Button::Enter), 1, None);
    }
    assert_eq!(ui.key(k(Button::Enter), 1, None).req, crate::ui::Request::Interrupt);
    assert_eq!(ui.key(k(Button::Menu), 1, None).req, crate::ui::Request::None, "MENU goes back a field");
}

#[test]
fn guess_ponders_and_a_hit_becomes_the_computer_move() {
    let mut r = Rig::new();
    r.game.guess = true;
    r.serial("fen rnbqkbnr/ppp2ppp/8/3pp3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
    r.game.computer = Opponent::Black;
    // The user's move; the computer answers (a 2 s search), then ponders
    // until a key interrupts it: MENU, long after the answer. The user
    // gives the queen away, so every iteration keeps one best move and
    // its main line has the reply to ponder on.
    let at = r.sim.now + 20_000;
    r.sim.later.push_back((at, KeyEvent { key: Button::Menu, kind: KeyKind::Long }));
    r.enter_move("d1g4");
    assert!(r.sim.now >= at, "the ponder search ran until the key");
    assert_eq!(r.game.pos.side_to_move(), crate::chess::Color::White);
    // The guess was taken back and MENU opened the menu.
    assert_eq!(r.app.ui.screen(), Screen::Menu);
    assert_eq!(r.game.takebacks(), 2);
}

#[test]
fn serial_protocol() {
    let mut r = Rig::new();
    assert_eq!(r.serial("ping"), "pong\n");
    assert_eq!(r.serial("perft 3"), format!("perft 3 {}\n", Position::start().perft(3)));
    assert_eq!(r.serial("fen?"), format!("fen {START_FEN}\n"));
    let kiwi = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(r.serial(&format!("fen {kiwi}")), "ok\n");
    assert_eq!(r.serial("fen?"), format!("fen {kiwi}\n"));
    assert_eq!(r.serial("perft 2"), "perft 2 2039\n");
    // Errors change nothing.
    assert_eq!(r.serial("fen 8/8/8 w - -"), "error bad fen\n");
    assert_eq!(r.serial("fen?"), format!("fen {kiwi}\n"));
    assert_eq!(r.serial("moves e2e4"), "error illegal move e2e4\n");
    assert_eq!(r.serial("moves e1g1 a8b8 g1h1 zz"), "error illegal move zz\n");
    assert_eq!(r.serial("fen?"), format!("fen {kiwi}\n"));
    assert_eq!(r.serial("xyzzy"), "error unknown command\n");
    assert_eq!(r.serial("perft 9"), "error bad depth\n");
    assert_eq!(r.serial("go depth x"), "error bad go\n");
    assert_eq!(r.serial(&"x".repeat(120)), "error line too long\n");
    r.sim.rx.extend(b"pi\x01ng\n");
    r.app.step(&mut r.game, &mut r.sim);
    assert_eq!(String::from_utf8(std::mem::take(&mut r.sim.tx)).unwrap(), "error bad characters\n");
    assert_eq!(r.serial("new"), "ok\n");
    assert_eq!(r.serial("moves e2e4 e7e5 g1f3"), "ok\n");
    assert_eq!(r.serial("status?"), "status ongoing\n");
    // A search: info lines, then a legal bestmove.
    let out = r.serial("go depth 3");
    let best = out.lines().last().unwrap();
    assert!(out.lines().any(|l| l.starts_with("info depth 3 ")), "{out}");
    assert!(out.lines().all(|l| l.len() < 96));
    let m = best.strip_prefix("bestmove ").unwrap().split(' ').next().unwrap();
    assert!(r.game.pos.parse_coord(m.as_bytes()).is_ok(), "{out}");
    // Mate and stalemate.
    r.serial("fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(r.serial("status?"), "status stalemate\n");
    assert_eq!(r.serial("go depth 2"), "bestmove 0000\n");
    // bench prints its totals and leaves a new game.
    let out = r.serial("bench 2");
    assert!(out.starts_with("bench nodes "), "{out}");
    assert_eq!(r.serial("fen?"), format!("fen {START_FEN}\n"));
}

#[test]
fn serial_stop_and_busy_during_a_search() {
    let mut r = Rig::new();
    r.serial("new");
    // `go infinite` ends only on stop: queue the lines behind it.
    r.sim.rx.extend(b"go infinite\nfen?\nping\nstop\n");
    r.app.step(&mut r.game, &mut r.sim);
    let out = String::from_utf8(std::mem::take(&mut r.sim.tx)).unwrap();
    assert!(out.contains("error busy\n"), "{out}");
    assert!(out.contains("pong\n"), "{out}");
    assert!(out.lines().last().unwrap().starts_with("bestmove "), "{out}");
}

#[test]
fn tournament_level_editor() {
    let mut r = Rig::new();
    r.menu(2);
    r.press(Button::Enter);
    r.keys("D"); // 0 -> T (wraps down)
    assert_eq!(r.row(0).trim_end(), "Level T");
    assert_eq!(r.row(1), "40 in 10m +0s   ");
    r.press(Button::Enter);
    assert_eq!(r.app.ui.screen(), Screen::Tournament);
    assert_eq!(r.row(1), " 40   10    0   ");
    r.keys("U E U U E U U U E"); // 50 moves, 20 min, +3 s
    assert_eq!(r.game.level, crate::game::LEVEL_TOURNAMENT);
    assert_eq!(r.game.tc, crate::game::TimeControl { moves: 50, minutes: 20, increment: 3 });
    assert_eq!(r.game.clock_ms, [1_200_000; 2]);
    r.press(Button::Menu);
    assert_eq!(&r.row(0)[11..], "20:00");
}

/// A pass of the loop woken by serial bytes that end no line leaves the LCD
/// alone (`App::step`); a pass without bytes, a line's end or a key draws.
#[test]
fn unfinished_serial_line_does_not_redraw() {
    let mut r = Rig::new();
    let shows = r.sim.shows;
    r.sim.rx.extend(b"pi");
    r.app.step(&mut r.game, &mut r.sim);
    r.sim.rx.extend(b"n");
    r.app.step(&mut r.game, &mut r.sim);
    assert_eq!(r.sim.shows, shows, "bytes of an unfinished line redrew");
    r.app.step(&mut r.game, &mut r.sim);
    assert_eq!(r.sim.shows, shows + 1, "a pass without bytes must draw (the clock)");
    r.sim.rx.extend(b"g\n");
    r.app.step(&mut r.game, &mut r.sim);
    assert_eq!(r.sim.shows, shows + 2, "a line's end must draw");
    assert_eq!(String::from_utf8(std::mem::take(&mut r.sim.tx)).unwrap(), "pong\n");
    r.sim.rx.extend(b"pi");
    r.sim.keys.push_back(KeyEvent { key: Button::Menu, kind: KeyKind::Press });
    r.app.step(&mut r.game, &mut r.sim);
    assert_eq!(r.app.ui.screen(), Screen::Menu);
    assert_eq!(r.sim.shows, shows + 3, "a key must draw at once");
}
