//! UCI text from the GUI to the firmware's serial lines, and back: pure
//! functions, no emulator (see `firmware/docs/serial-protocol.md`).

/// The longest line the firmware accepts (without its LF).
pub const MAX_LINE: usize = 96;

/// The firmware's `perft` limit.
pub const MAX_PERFT: u32 = 6;

/// Where a `position` command starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// A `position` command: a start and the moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub start: Start,
    pub moves: Vec<String>,
}

/// The parameters of `go` the firmware understands.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    pub movetime: Option<u64>,
    pub depth: Option<u64>,
    pub nodes: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
}

/// One line from the GUI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    Position(Position),
    /// A search; the strings are parts of the line that were ignored.
    Go(Go, Vec<String>),
    Perft(u32),
    Stop,
    PonderHit,
    Quit,
    Debug,
    SetOption(String),
    Register,
    /// Blank line: nothing to do.
    Empty,
    /// Not understood; the text says why.
    Invalid(String),
}

/// Parses one line from the GUI. Never fails: garbage is [`Command::Invalid`].
pub fn parse(line: &str) -> Command {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = tokens.split_first() else { return Command::Empty };
    match first {
        "uci" => Command::Uci,
        "isready" => Command::IsReady,
        "ucinewgame" => Command::UciNewGame,
        "position" => parse_position(rest).map_or_else(Command::Invalid, Command::Position),
        "go" => parse_go(rest),
        "stop" => Command::Stop,
        "ponderhit" => Command::PonderHit,
        "quit" => Command::Quit,
        "debug" => Command::Debug,
        "setoption" => Command::SetOption(rest.join(" ")),
        "register" => Command::Register,
        other => Command::Invalid(format!("unknown command `{}`", shorten(other))),
    }
}

/// `other` cut to a printable length (garbage can be long).
fn shorten(s: &str) -> String {
    let clean: String = s.chars().map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' }).collect();
    if clean.chars().count() > 40 {
        format!("{}...", clean.chars().take(40).collect::<String>())
    } else {
        clean
    }
}

/// Whether `m` is a move in coordinate notation (`e2e4`, `e7e8q`).
pub fn is_coordinate_move(m: &str) -> bool {
    let b = m.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    match b.len() {
        4 => square(b[0], b[1]) && square(b[2], b[3]),
        5 => square(b[0], b[1]) && square(b[2], b[3]) && b"qrbn".contains(&b[4]),
        _ => false,
    }
}

fn parse_position(rest: &[&str]) -> Result<Position, String> {
    let (start, after) = match rest.first() {
        Some(&"startpos") => (Start::StartPos, &rest[1..]),
        Some(&"fen") => {
            let end = rest.iter().position(|&t| t == "moves").unwrap_or(rest.len());
            let fields = &rest[1..end];
            if fields.len() < 4 || fields.len() > 6 {
                return Err(format!("position fen: expected 4 to 6 FEN fields, got {}", fields.len()));
            }
            if !fields[0].chars().all(|c| "pnbrqkPNBRQK12345678/".contains(c)) || fields[0].split('/').count() != 8 {
                return Err(format!("position fen: bad piece placement `{}`", shorten(fields[0])));
            }
            if fields[1] != "w" && fields[1] != "b" {
                return Err(format!("position fen: bad side to move `{}`", shorten(fields[1])));
            }
            let mut fen: Vec<&str> = fields.to_vec();
            // The firmware gets all six fields.
            if fen.len() < 5 {
                fen.push("0");
            }
            if fen.len() < 6 {
                fen.push("1");
            }
            (Start::Fen(fen.join(" ")), &rest[end..])
        }
        Some(other) => return Err(format!("position: expected startpos or fen, got `{}`", shorten(other))),
        None => return Err("position: expected startpos or fen".into()),
    };
    let moves = match after.split_first() {
        None => Vec::new(),
        Some((&"moves", list)) => {
            if let Some(bad) = list.iter().find(|m| !is_coordinate_move(m)) {
                return Err(format!("position: `{}` is not a move", shorten(bad)));
            }
            list.iter().map(|m| m.to_string()).collect()
        }
        Some((other, _)) => return Err(format!("position: expected moves, got `{}`", shorten(other))),
    };
    Ok(Position { start, moves })
}

fn parse_go(rest: &[&str]) -> Command {
    if rest.first() == Some(&"perft") {
        return match rest.get(1).map(|n| n.parse::<u32>()) {
            Some(Ok(n)) if (1..=MAX_PERFT).contains(&n) => Command::Perft(n),
            Some(Ok(n)) => Command::Invalid(format!("go perft {n}: the firmware counts depths 1 to {MAX_PERFT}")),
            _ => Command::Invalid("go perft: expected a depth".into()),
        };
    }
    let mut go = Go::default();
    let mut ignored = Vec::new();
    let mut i = 0;
    while i < rest.len() {
        let key = rest[i];
        let slot = match key {
            "wtime" => Some(&mut go.wtime),
            "btime" => Some(&mut go.btime),
            "winc" => Some(&mut go.winc),
            "binc" => Some(&mut go.binc),
            "movestogo" => Some(&mut go.movestogo),
            "movetime" => Some(&mut go.movetime),
            "depth" => Some(&mut go.depth),
            "nodes" => Some(&mut go.nodes),
            _ => None,
        };
        if let Some(slot) = slot {
            // Clocks may be negative when a GUI lets the time run out: 0.
            match rest.get(i + 1).map(|v| v.parse::<i64>()) {
                Some(Ok(v)) => *slot = Some(v.max(0) as u64),
                _ => ignored.push(format!("{key} without a number")),
            }
            i += 2;
            continue;
        }
        match key {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                // Moves follow; the firmware cannot restrict its root.
                let n = rest[i + 1..].iter().take_while(|m| is_coordinate_move(m)).count();
                ignored.push("searchmoves".into());
                i += n;
            }
            "mate" => {
                ignored.push("mate".into());
                i += 1;
            }
            other => ignored.push(format!("`{}`", shorten(other))),
        }
        i += 1;
    }
    Command::Go(go, ignored)
}

/// The firmware's `go` line for these parameters.
pub fn go_line(go: &Go) -> String {
    let mut s = String::from("go");
    let nums = [
        ("depth", go.depth),
        ("nodes", go.nodes),
        ("movetime", go.movetime),
        ("wtime", go.wtime),
        ("btime", go.btime),
        ("winc", go.winc),
        ("binc", go.binc),
        ("movestogo", go.movestogo),
    ];
    for (key, value) in nums {
        if let Some(v) = value {
            // The firmware's numbers are 32-bit.
            s.push_str(&format!(" {key} {}", v.min(u32::MAX as u64)));
        }
    }
    if go.infinite {
        s.push_str(" infinite");
    }
    if go.ponder {
        s.push_str(" ponder");
    }
    s
}

/// The firmware's `perft` line.
pub fn perft_line(depth: u32) -> String {
    format!("perft {depth}")
}

/// The lines that take the firmware from `current` (what it holds, if
/// known) to `wanted`: only the new moves when `wanted` continues
/// `current`, else `new`/`fen` and every move. `moves` lines are split to
/// fit [`MAX_LINE`]. Errors if the FEN line is too long.
pub fn position_lines(current: Option<&Position>, wanted: &Position) -> Result<Vec<String>, String> {
    let mut lines = Vec::new();
    let from = match current {
        Some(cur) if cur.start == wanted.start && wanted.moves.starts_with(&cur.moves) => cur.moves.len(),
        _ => {
            match &wanted.start {
                Start::StartPos => lines.push("new".to_string()),
                Start::Fen(fen) => {
                    let line = format!("fen {fen}");
                    if line.len() > MAX_LINE {
                        return Err(format!("the FEN is longer than the firmware's {MAX_LINE}-byte line"));
                    }
                    lines.push(line);
                }
            }
            0
        }
    };
    let mut line = String::new();
    for m in &wanted.moves[from..] {
        if !line.is_empty() && line.len() + 1 + m.len() > MAX_LINE {
            lines.push(std::mem::take(&mut line));
        }
        if line.is_empty() {
            line.push_str("moves");
        }
        line.push(' ');
        line.push_str(m);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    Ok(lines)
}

/// A line from the firmware, classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    Pong,
    Ok,
    Error(String),
    /// An `info` line, passed to the GUI as it is.
    Info(String),
    /// A `bestmove` line, passed to the GUI as it is.
    BestMove(String),
    Perft { depth: u32, nodes: u64 },
    /// Anything else (the boot banner, `fen ...` answers, ...).
    Other(String),
}

pub fn classify(line: &str) -> Reply {
    let line = line.trim_end_matches(['\r', '\n']);
    let mut t = line.split_whitespace();
    match t.next() {
        Some("pong") if t.next().is_none() => Reply::Pong,
        Some("ok") if t.next().is_none() => Reply::Ok,
        Some("error") => Reply::Error(line["error".len()..].trim().to_string()),
        Some("info") => Reply::Info(line.to_string()),
        Some("bestmove") => Reply::BestMove(line.to_string()),
        Some("perft") => {
            let d = t.next().and_then(|d| d.parse().ok());
            let n = t.next().and_then(|n| n.parse().ok());
            match (d, n, t.next()) {
                (Some(depth), Some(nodes), None) => Reply::Perft { depth, nodes },
                _ => Reply::Other(line.to_string()),
            }
        }
        _ => Reply::Other(line.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: &str) -> Position {
        match parse(line) {
            Command::Position(p) => p,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn simple_commands() {
        assert_eq!(parse("uci"), Command::Uci);
        assert_eq!(parse("  isready \r"), Command::IsReady);
        assert_eq!(parse("ucinewgame"), Command::UciNewGame);
        assert_eq!(parse("stop"), Command::Stop);
        assert_eq!(parse("ponderhit"), Command::PonderHit);
        assert_eq!(parse("quit"), Command::Quit);
        assert_eq!(parse(""), Command::Empty);
        assert_eq!(parse("   \t "), Command::Empty);
        assert_eq!(parse("setoption name Hash value 16"), Command::SetOption("name Hash value 16".into()));
    }

    #[test]
    fn garbage_is_invalid_not_a_panic() {
        for junk in ["xyzzy", "\u{0}\u{1}\u{7f}", "position", "position sideways", "go perft", "go perft x", "go perft 9",
            "position fen", "position fen 8/8/8/8/8/8/8/8", "position fen a b c d", "position startpos moves e2e9",
            "position startpos e2e4", "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
            "ééé", &"x".repeat(10_000)] {
            let c = parse(junk);
            assert!(matches!(c, Command::Invalid(_)), "{junk:?} gave {c:?}");
            if let Command::Invalid(why) = c {
                assert!(why.len() < 200, "message too long: {why}");
            }
        }
    }

    #[test]
    fn positions() {
        assert_eq!(pos("position startpos"), Position { start: Start::StartPos, moves: vec![] });
        assert_eq!(
            pos("position startpos moves e2e4 e7e5 g1f3"),
            Position { start: Start::StartPos, moves: vec!["e2e4".into(), "e7e5".into(), "g1f3".into()] }
        );
        let p = pos("position fen 8/8/8/4k3/8/8/8/4K2R w K - 3 40 moves e1g1");
        assert_eq!(p.start, Start::Fen("8/8/8/4k3/8/8/8/4K2R w K - 3 40".into()));
        assert_eq!(p.moves, vec!["e1g1".to_string()]);
        // Missing counters are filled in.
        let p = pos("position fen 8/8/8/4k3/8/8/8/4K2R b - -");
        assert_eq!(p.start, Start::Fen("8/8/8/4k3/8/8/8/4K2R b - - 0 1".into()));
        assert!(p.moves.is_empty());
        assert_eq!(pos("position startpos moves a7a8q").moves, vec!["a7a8q".to_string()]);
    }

    #[test]
    fn go_parameters() {
        let Command::Go(go, ignored) = parse("go wtime 60000 btime 59000 winc 1000 binc 1000 movestogo 20") else { panic!() };
        assert!(ignored.is_empty());
        assert_eq!(go_line(&go), "go wtime 60000 btime 59000 winc 1000 binc 1000 movestogo 20");
        let Command::Go(go, _) = parse("go movetime 200") else { panic!() };
        assert_eq!(go_line(&go), "go movetime 200");
        let Command::Go(go, _) = parse("go depth 3 nodes 5000") else { panic!() };
        assert_eq!(go_line(&go), "go depth 3 nodes 5000");
        let Command::Go(go, _) = parse("go nodes 99999999999") else { panic!() };
        assert_eq!(go_line(&go), "go nodes 4294967295");
        let Command::Go(go, _) = parse("go infinite") else { panic!() };
        assert_eq!(go_line(&go), "go infinite");
        let Command::Go(go, _) = parse("go ponder wtime 1000 btime 1000") else { panic!() };
        assert_eq!(go_line(&go), "go wtime 1000 btime 1000 ponder");
        assert_eq!(go_line(&Go::default()), "go");
        // Negative clocks become 0; unsupported parts are reported.
        let Command::Go(go, ignored) = parse("go wtime -50 btime 10 searchmoves e2e4 d2d4 mate 3 frobnicate") else { panic!() };
        assert_eq!(go.wtime, Some(0));
        assert_eq!(go.btime, Some(10));
        assert_eq!(ignored, vec!["searchmoves".to_string(), "mate".into(), "`frobnicate`".into()]);
        let Command::Go(go, ignored) = parse("go movetime abc") else { panic!() };
        assert_eq!(go.movetime, None);
        assert_eq!(ignored.len(), 1);
        assert_eq!(parse("go perft 3"), Command::Perft(3));
        assert_eq!(perft_line(3), "perft 3");
    }

    #[test]
    fn position_from_scratch() {
        let p = pos("position startpos moves e2e4 e7e5");
        assert_eq!(position_lines(None, &p).unwrap(), vec!["new", "moves e2e4 e7e5"]);
        let p = pos("position fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1");
        assert_eq!(position_lines(None, &p).unwrap(), vec!["fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1"]);
    }

    #[test]
    fn position_diffs_send_only_new_moves() {
        let a = pos("position startpos moves e2e4 e7e5");
        let b = pos("position startpos moves e2e4 e7e5 g1f3 b8c6");
        assert_eq!(position_lines(Some(&a), &b).unwrap(), vec!["moves g1f3 b8c6"]);
        assert!(position_lines(Some(&b), &b).unwrap().is_empty());
        // Taking back, or another line, starts again.
        assert_eq!(position_lines(Some(&b), &a).unwrap(), vec!["new", "moves e2e4 e7e5"]);
        let c = pos("position startpos moves d2d4");
        assert_eq!(position_lines(Some(&a), &c).unwrap(), vec!["new", "moves d2d4"]);
        let f = pos("position fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1 moves e1g1");
        assert_eq!(position_lines(Some(&a), &f).unwrap()[0], "fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1");
    }

    #[test]
    fn long_games_are_split_into_short_lines() {
        let moves: Vec<String> = (0..200).map(|i| if i % 2 == 0 { "g1f3" } else { "g8f6" }.to_string()).collect();
        let p = Position { start: Start::StartPos, moves: moves.clone() };
        let lines = position_lines(None, &p).unwrap();
        assert_eq!(lines[0], "new");
        let mut back = Vec::new();
        for (i, l) in lines.iter().enumerate().skip(1) {
            assert!(l.len() <= MAX_LINE, "{} bytes: {l}", l.len());
            assert!(i == lines.len() - 1 || l.len() > MAX_LINE - 6, "lines should be full: {l}");
            let mut t = l.split(' ');
            assert_eq!(t.next(), Some("moves"));
            back.extend(t.map(String::from));
        }
        assert_eq!(back.len(), 200);
        assert_eq!(back, moves);
    }

    #[test]
    fn too_long_fen_is_an_error() {
        let p = Position { start: Start::Fen(format!("{} w - - 0 1", "1".repeat(100))), moves: vec![] };
        assert!(position_lines(None, &p).is_err());
    }

    #[test]
    fn firmware_replies() {
        assert_eq!(classify("pong"), Reply::Pong);
        assert_eq!(classify("ok\r"), Reply::Ok);
        assert_eq!(classify("error illegal move e2e5"), Reply::Error("illegal move e2e5".into()));
        assert_eq!(classify("info depth 3 score cp 20 pv e2e4"), Reply::Info("info depth 3 score cp 20 pv e2e4".into()));
        assert_eq!(classify("bestmove e2e4 ponder e7e5"), Reply::BestMove("bestmove e2e4 ponder e7e5".into()));
        assert_eq!(classify("perft 3 8902"), Reply::Perft { depth: 3, nodes: 8902 });
        assert_eq!(classify("perft 3"), Reply::Other("perft 3".into()));
        assert_eq!(classify("Chess Prodigy v2.0 Rust"), Reply::Other("Chess Prodigy v2.0 Rust".into()));
    }
}
