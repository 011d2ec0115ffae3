//! Rules of the `chess` module: FEN, notation, special moves, draws, hashing.

use firmware::chess::*;

fn pos(fen: &str) -> Position {
    Position::from_fen(fen.as_bytes()).unwrap_or_else(|e| panic!("{fen}: {e:?}"))
}

fn fen_of(p: &Position) -> String {
    let mut buf = [0u8; FEN_MAX_LEN];
    let n = p.write_fen(&mut buf).expect("FEN fits");
    String::from_utf8(buf[..n].to_vec()).expect("ASCII")
}

fn legal_moves(p: &Position) -> Vec<Move> {
    let mut gen = MoveGen::new();
    let mut v = Vec::new();
    while let Some(m) = gen.next_legal(p) {
        v.push(m);
    }
    v
}

fn coord(m: Move) -> String {
    let mut buf = [0u8; 5];
    let n = m.write_coord(&mut buf).expect("fits");
    String::from_utf8(buf[..n].to_vec()).expect("ASCII")
}

fn has_move(p: &Position, text: &str) -> bool {
    legal_moves(p).iter().any(|&m| coord(m) == text)
}

fn play(p: &mut Position, moves: &str) {
    for t in moves.split_whitespace() {
        let m = p
            .parse_coord(t.as_bytes())
            .unwrap_or_else(|e| panic!("{t}: {e:?} in {}", fen_of(p)));
        p.make_move(m);
        assert!(p.is_consistent(), "after {t}");
    }
}

/// Tiny deterministic PRNG (xorshift64*).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const SAMPLE_FENS: &[&str] = &[
    START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b Kq d3 0 3",
    "4k3/8/8/8/8/8/8/4K3 b - - 99 65535",
];

#[test]
fn print_sizes() {
    use core::mem::size_of;
    eprintln!(
        "Position {} B (of which HashHistory {} B), MoveGen {} B, Move {} B, Undo {} B",
        size_of::<Position>(),
        size_of::<HashHistory>(),
        size_of::<MoveGen>(),
        size_of::<Move>(),
        size_of::<Undo>()
    );
    assert!(size_of::<MoveGen>() <= 6);
    assert_eq!(size_of::<Move>(), 2);
    assert!(size_of::<Position>() - size_of::<HashHistory>() <= 192);
}

#[test]
fn fen_round_trips() {
    for fen in SAMPLE_FENS {
        let p = pos(fen);
        assert_eq!(fen_of(&p), *fen);
        assert!(p.is_consistent());
    }
    // Four-field (EPD) FEN gets default counters.
    assert_eq!(
        fen_of(&pos("4k3/8/8/8/8/8/8/4K3 w - -")),
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
    );
    // Castling letters in any order come out canonical.
    assert_eq!(
        fen_of(&pos("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1")),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    );
    let mut small = [0u8; 10];
    assert_eq!(Position::start().write_fen(&mut small), Err(BufferTooSmall));
}

#[test]
fn fen_errors() {
    use FenError::*;
    let cases: &[(&str, FenError)] = &[
        ("", MissingField),
        ("8/8/8/8/8/8/8/8 w", MissingField),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0", MissingField),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 x", TrailingData),
        ("4k3/8/8/8/8/8/8/4X3 w - - 0 1", BadPieceChar),
        ("4k3/8/8/8/8/8/8/0K7 w - - 0 1", BadPieceChar),
        ("4k3/8/8/8/8/8/8/4K2 w - - 0 1", BadRankLength),
        ("4k3/8/8/8/8/8/8/4K4 w - - 0 1", BadRankLength),
        ("4k3/8/8/8/8/8/8/4K3p w - - 0 1", BadRankLength),
        ("4k3/8/9/8/8/8/8/4K3 w - - 0 1", BadPieceChar),
        ("4k3/8/8/8/8/8/4K3 w - - 0 1", BadRankCount),
        ("4k3/8/8/8/8/8/8/8/4K3 w - - 0 1", BadRankCount),
        ("4k3/8/8/8/QQQQQQQQ/QQQQQQQQ/8/4K3 w - - 0 1", TooManyPieces),
        ("4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", TooManyPawns),
        ("8/8/8/8/8/8/8/4K3 w - - 0 1", MissingKing),
        ("4k3/8/8/8/8/8/8/8 w - - 0 1", MissingKing),
        ("4k3/8/8/8/8/8/8/3KK3 w - - 0 1", TooManyKings),
        ("4k2P/8/8/8/8/8/8/4K3 w - - 0 1", PawnOnBackRank),
        ("4k3/8/8/8/8/8/8/p3K3 w - - 0 1", PawnOnBackRank),
        ("4k3/8/8/8/8/8/8/4K3 x - - 0 1", BadSideToMove),
        ("4k3/8/8/8/8/8/8/4K3 white - - 0 1", BadSideToMove),
        ("4k3/8/8/8/8/8/8/4K2R w X - 0 1", BadCastling),
        ("4k3/8/8/8/8/8/8/4K2R w KK - 0 1", BadCastling),
        ("4k3/8/8/8/8/8/8/4K2R w Q - 0 1", BadCastling),
        ("4k3/8/8/8/8/8/8/4K2R w Kk - 0 1", BadCastling),
        ("4k3/8/8/8/8/8/8/3K3R w K - 0 1", BadCastling),
        ("4k3/8/8/8/8/8/8/4K3 w - e9 0 1", BadEpSquare),
        ("4k3/8/8/8/8/8/8/4K3 w - e66 0 1", BadEpSquare),
        ("4k3/8/8/8/4P3/8/8/4K3 w - e3 0 1", BadEpSquare),
        ("4k3/8/8/4p3/8/8/8/4K3 b - e6 0 1", BadEpSquare),
        ("4k3/8/8/8/8/8/8/4K3 w - e6 0 1", BadEpSquare),
        ("4k3/4p3/8/4p3/8/8/8/4K3 w - e6 0 1", BadEpSquare),
        ("4k3/8/8/8/8/8/8/4K3 w - - x 1", BadHalfmoveClock),
        ("4k3/8/8/8/8/8/8/4K3 w - - 256 1", BadHalfmoveClock),
        ("4k3/8/8/8/8/8/8/4K3 w - - -1 1", BadHalfmoveClock),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", BadFullmoveNumber),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 65536", BadFullmoveNumber),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1a", BadFullmoveNumber),
        ("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1", OpponentInCheck),
        ("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", OpponentInCheck),
    ];
    for (fen, err) in cases {
        assert_eq!(
            Position::from_fen(fen.as_bytes()).err(),
            Some(*err),
            "{fen:?}"
        );
    }
    // A failed set_fen leaves an empty board, not a half-built one.
    let mut p = Position::start();
    assert!(p.set_fen(b"rnbqkbnr/pppppppp/8/8/8 w - - 0 1").is_err());
    assert_eq!(p.piece_at(0x04), 0);
}

#[test]
fn fen_parser_never_panics() {
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let alphabet = b"pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0 9x";
    for i in 0..20_000 {
        let mut bytes: Vec<u8> = if i % 2 == 0 {
            SAMPLE_FENS[rng.below(SAMPLE_FENS.len())]
                .as_bytes()
                .to_vec()
        } else {
            (0..rng.below(100)).map(|_| rng.next() as u8).collect()
        };
        for _ in 0..rng.below(4) {
            if bytes.is_empty() {
                break;
            }
            let k = rng.below(bytes.len());
            match rng.below(3) {
                0 => bytes[k] = alphabet[rng.below(alphabet.len())],
                1 => {
                    bytes.remove(k);
                }
                _ => bytes.insert(k, rng.next() as u8),
            }
        }
        if let Ok(p) = Position::from_fen(&bytes) {
            assert!(p.is_consistent());
            let f = fen_of(&p);
            assert_eq!(fen_of(&pos(&f)), f);
        }
    }
}

#[test]
fn coordinate_notation() {
    let p = Position::start();
    let m = p.parse_coord(b"e2e4").expect("legal");
    assert_eq!(m.kind(), MoveKind::DoublePush);
    assert_eq!(coord(m), "e2e4");
    assert_eq!(p.parse_coord(b"e2e5"), Err(NotationError::Illegal));
    assert_eq!(p.parse_coord(b"e7e5"), Err(NotationError::Illegal));
    for bad in [
        &b""[..],
        b"e2",
        b"e2e",
        b"e2e4qq",
        b"i2e4",
        b"e9e4",
        b"e2e4k",
        b"E2E4",
        b"e2-e4",
    ] {
        assert_eq!(p.parse_coord(bad), Err(NotationError::Malformed), "{bad:?}");
    }

    let p = pos("1n2k3/P7/8/8/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        p.parse_coord(b"a7a8"),
        Err(NotationError::Illegal),
        "promotion letter required"
    );
    for (t, kind) in [
        ("a7a8q", 5),
        ("a7a8r", 4),
        ("a7a8b", 3),
        ("a7a8n", 2),
        ("a7b8Q", 5),
    ] {
        let m = p.parse_coord(t.as_bytes()).expect(t);
        assert!(m.is_promotion());
        assert_eq!(m.promotion(), kind);
        assert_eq!(coord(m), t.to_ascii_lowercase());
    }
    assert!(p
        .parse_coord(b"a7b8n")
        .expect("capture-promotion")
        .is_capture());

    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(
        p.parse_coord(b"e1g1").map(|m| m.kind()),
        Ok(MoveKind::Castle)
    );
    assert_eq!(
        p.parse_coord(b"e1c1").map(|m| m.kind()),
        Ok(MoveKind::Castle)
    );
    assert_eq!(p.parse_coord(b"e1h1"), Err(NotationError::Illegal));
}

#[test]
fn castling_rules() {
    let both = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(has_move(&both, "e1g1") && has_move(&both, "e1c1"));
    // Through check (f1), into check (g1), out of check.
    let through = pos("4kr2/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(!has_move(&through, "e1g1") && has_move(&through, "e1c1"));
    let into = pos("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(!has_move(&into, "e1g1") && has_move(&into, "e1c1"));
    let out = pos("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(!has_move(&out, "e1g1") && !has_move(&out, "e1c1"));
    // b1 attacked does not matter (the king does not cross it); d1 does.
    assert!(has_move(&pos("1r2k3/8/8/8/8/8/8/R3K2R w KQ - 0 1"), "e1c1"));
    assert!(!has_move(&pos("3rk3/8/8/8/8/8/8/R3K2R w KQ - 0 1"), "e1c1"));
    // Occupied squares between.
    let blocked = pos("4k3/8/8/8/8/8/8/RN2K1NR w KQ - 0 1");
    assert!(!has_move(&blocked, "e1g1") && !has_move(&blocked, "e1c1"));
    // Rights absent in FEN: rook or king marked as moved.
    let partial = pos("r3k2r/8/8/8/8/8/8/R3K2R w Kq - 0 1");
    assert!(has_move(&partial, "e1g1") && !has_move(&partial, "e1c1"));
    assert_eq!(fen_of(&partial).split(' ').nth(2), Some("Kq"));

    // Castling moves the rook and removes both rights of that side.
    let mut p = both.clone();
    play(&mut p, "e1g1");
    assert_eq!(fen_of(&p), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    play(&mut p, "e8c8");
    assert_eq!(fen_of(&p), "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");

    // A rook that went away and came back has lost its right.
    let mut p = both.clone();
    play(&mut p, "h1h2 a8b8 h2h1 b8a8");
    assert_eq!(fen_of(&p).split(' ').nth(2), Some("Qk"));
    assert!(!has_move(&p, "e1g1"));
    // So has a king.
    let mut p = both.clone();
    play(&mut p, "e1f1 e8f8 f1e1 f8e8");
    assert_eq!(fen_of(&p).split(' ').nth(2), Some("-"));
    // A captured rook takes the right with it.
    let mut p = pos("4k3/8/8/8/8/8/6b1/R3K2R b KQ - 0 1");
    play(&mut p, "g2h1");
    assert_eq!(fen_of(&p).split(' ').nth(2), Some("Q"));

    // Unmaking restores rights, hash and the rook.
    let mut p = both.clone();
    let m = p.parse_coord(b"e1c1").expect("legal");
    let u = p.make_move(m);
    p.unmake_move(m, &u);
    assert_eq!(fen_of(&p), fen_of(&both));
    assert_eq!(p.hash(), both.hash());
}

#[test]
fn en_passant_rules() {
    let p = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    let mut q = p.clone();
    play(&mut q, "e5d6");
    assert_eq!(fen_of(&q), "4k3/8/3P4/8/8/8/8/4K3 b - - 0 1");
    // Only immediately after the double push.
    let mut q = p.clone();
    play(&mut q, "e1d1 e8d8");
    assert!(!has_move(&q, "e5d6"));
    // Both pawns leave the rank: the king would be exposed to the rook.
    assert!(!has_move(&pos("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1"), "e5d6"));
    assert!(has_move(&pos("8/8/8/K2pP3/8/8/8/7k w - d6 0 1"), "e5d6"));
    // Pinned diagonally: the capture is fine only along the pin line.
    assert!(!has_move(
        &pos("4k3/8/5b2/3pP3/8/2K5/8/8 w - d6 0 1"),
        "e5d6"
    ));
    let along = pos("1b2k3/8/8/3pP3/8/6K1/8/8 w - d6 0 1");
    assert!(has_move(&along, "e5d6") && !has_move(&along, "e5e6"));
    // Discovered check through the captured pawn's square.
    let mut q = pos("k7/8/8/3pP3/8/5B2/8/4K3 w - d6 0 1");
    play(&mut q, "e5d6");
    assert!(q.in_check());
    // Capturing the checking pawn en passant is a legal evasion.
    let evade = pos("8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1");
    assert!(evade.in_check());
    assert!(has_move(&evade, "e4d3"));
    // Unmake restores the captured pawn.
    let mut q = p.clone();
    let m = q.parse_coord(b"e5d6").expect("legal");
    assert_eq!(m.kind(), MoveKind::EnPassant);
    let u = q.make_move(m);
    q.unmake_move(m, &u);
    assert_eq!(fen_of(&q), fen_of(&p));
    assert!(q.is_consistent());
}

#[test]
fn checkmate_and_stalemate() {
    let mut p = Position::start();
    play(&mut p, "f2f3 e7e5 g2g4");
    assert_eq!(p.status(), GameStatus::Ongoing);
    play(&mut p, "d8h4");
    assert!(p.in_check());
    assert_eq!(p.status(), GameStatus::Checkmate);
    assert!(legal_moves(&p).is_empty());
    assert_eq!(
        pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").status(),
        GameStatus::Stalemate
    );
}

#[test]
fn fifty_move_rule() {
    let mut p = pos("8/8/8/8/8/4k3/8/R3K3 w - - 98 80");
    play(&mut p, "a1a2");
    assert_eq!(p.status(), GameStatus::Ongoing);
    play(&mut p, "e3d3");
    assert!(p.is_fifty_move_draw());
    assert_eq!(p.status(), GameStatus::DrawFiftyMoves);
    // A pawn move or capture resets the clock.
    let mut p = pos("8/8/8/8/8/4k3/P7/4K3 w - - 99 80");
    play(&mut p, "a2a3");
    assert_eq!(p.halfmove_clock(), 0);
    // Mate on the hundredth ply is still mate.
    let mut p = pos("7k/8/6K1/8/8/8/8/R7 w - - 99 80");
    play(&mut p, "a1a8");
    assert_eq!(p.status(), GameStatus::Checkmate);
}

#[test]
fn threefold_repetition() {
    let mut p = Position::start();
    play(&mut p, "g1f3 g8f6 f3g1 f6g8");
    assert_eq!(p.repetitions(), 1);
    assert_eq!(p.status(), GameStatus::Ongoing);
    play(&mut p, "g1f3 g8f6 f3g1");
    assert_eq!(p.repetitions(), 1, "this position too occurred once before");
    play(&mut p, "f6g8");
    assert_eq!(p.repetitions(), 2);
    assert_eq!(p.status(), GameStatus::DrawThreefold);
    // An irreversible move cuts the history: nothing before it can repeat.
    play(&mut p, "e2e4");
    assert_eq!(p.repetitions(), 0);
    // Losing castling rights makes positions different.
    let mut p = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    play(&mut p, "e1f1 e8f8 f1e1 f8e8 e1f1 e8f8 f1e1 f8e8");
    assert_eq!(p.repetitions(), 1, "first occurrence had castling rights");
    // Undoing moves takes the positions back out of the history.
    let mut p = Position::start();
    let before = p.history().len();
    let m = p.parse_coord(b"g1f3").expect("legal");
    let u = p.make_move(m);
    assert_eq!(p.history().len(), before + 1);
    p.unmake_move(m, &u);
    assert_eq!(p.history().len(), before);
}

#[test]
fn insufficient_material() {
    for fen in [
        "4k3/8/8/8/8/8/8/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/4KN2 w - - 0 1",
        "4k3/8/8/8/8/8/8/4KB2 w - - 0 1",
        "4kb2/8/8/8/8/8/8/4K3 w - - 0 1",
        "4kb2/8/8/8/8/8/8/4K1B1 w - - 0 1",
        "2b1k3/8/8/8/8/8/8/4KB2 w - - 0 1",
    ] {
        let p = pos(fen);
        assert!(p.is_insufficient_material(), "{fen}");
        assert_eq!(p.status(), GameStatus::DrawInsufficientMaterial, "{fen}");
    }
    for fen in [
        "4kb2/8/8/8/8/8/8/4KB2 w - - 0 1",
        "4kn2/8/8/8/8/8/8/4KN2 w - - 0 1",
        "4kn2/8/8/8/8/8/8/4KB2 w - - 0 1",
        "4k3/8/8/8/8/8/8/4KNN1 w - - 0 1",
        "4k3/8/8/8/8/8/P7/4K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/R3K3 w - - 0 1",
        "4k3/8/8/8/8/8/8/3QK3 w - - 0 1",
    ] {
        assert!(!pos(fen).is_insufficient_material(), "{fen}");
    }
}

#[test]
fn captures_mode_and_pseudo_legality() {
    let mut rng = Rng(42);
    for fen in SAMPLE_FENS {
        let p = pos(fen);
        let mut all = Vec::new();
        let mut gen = MoveGen::new();
        while let Some(m) = gen.next(&p) {
            assert!(p.is_pseudo_legal(m), "{fen}: {}", coord(m));
            all.push(m);
        }
        let mut caps = Vec::new();
        let mut gen = MoveGen::captures();
        while let Some(m) = gen.next(&p) {
            caps.push(m);
        }
        let expected: Vec<Move> = all
            .iter()
            .copied()
            .filter(|m| m.is_capture() || m.is_promotion())
            .collect();
        let mut a = caps.clone();
        let mut b = expected.clone();
        a.sort_by_key(|m| m.0);
        b.sort_by_key(|m| m.0);
        assert_eq!(a, b, "{fen}");
        // Without captures: the other moves (promotions kept, en passant
        // and castling left out), in the same order.
        let mut quiet = Vec::new();
        let mut gen = MoveGen::new().without_captures();
        while let Some(m) = gen.next(&p) {
            quiet.push(m);
        }
        let expected: Vec<Move> = all
            .iter()
            .copied()
            .filter(|m| (!m.is_capture() || m.is_promotion()) && m.kind() != MoveKind::Castle)
            .collect();
        assert_eq!(quiet, expected, "{fen}");
        // Arbitrary 16-bit values are pseudo-legal exactly when generated.
        for _ in 0..5000 {
            let m = Move(rng.next() as u16);
            assert_eq!(
                p.is_pseudo_legal(m),
                all.contains(&m),
                "{fen}: {:#06x}",
                m.0
            );
        }
        // Every from-to pair with every move kind and capture flag.
        for from in 0..64u16 {
            for to in 0..64u16 {
                for flags in 0..16u16 {
                    let m = Move(from | to << 6 | flags << 12);
                    assert_eq!(p.is_pseudo_legal(m), all.contains(&m), "{fen}: {:#06x}", m.0);
                }
            }
        }
        for &m in &all {
            assert_eq!(p.is_legal_move(m), legal_moves(&p).contains(&m));
        }
    }
    assert!(!Position::start().is_pseudo_legal(Move::NONE));
}

#[test]
fn hash_stays_incremental_over_random_games() {
    let mut rng = Rng(0xDEC0_DED5_EED5_0001);
    for game in 0..300 {
        let start_fen = SAMPLE_FENS[game % SAMPLE_FENS.len()];
        let mut p = pos(start_fen);
        let mut stack = Vec::new();
        for _ in 0..rng.below(200) {
            let moves = legal_moves(&p);
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            let before = fen_of(&p);
            let u = p.make_move(m);
            assert_eq!(p.hash(), p.compute_hash(), "after {} in {before}", coord(m));
            assert!(p.is_consistent(), "after {} in {before}", coord(m));
            assert!(
                !p.is_square_attacked(p.king_square(p.side_to_move().other()), p.side_to_move())
            );
            // The written FEN parses back to the same position and hash.
            let f = fen_of(&p);
            let q = pos(&f);
            assert_eq!(fen_of(&q), f);
            assert_eq!(q.hash(), p.hash(), "{f}");
            if rng.below(8) == 0 {
                let nu = p.make_null_move();
                assert_eq!(p.hash(), p.compute_hash());
                p.unmake_null_move(&nu);
                assert_eq!(fen_of(&p), f);
            }
            stack.push((m, u, before));
        }
        while let Some((m, u, before)) = stack.pop() {
            p.unmake_move(m, &u);
            assert_eq!(fen_of(&p), before);
            assert_eq!(p.hash(), p.compute_hash());
        }
        assert_eq!(fen_of(&p), start_fen);
    }
}

#[test]
fn start_position_and_attacks() {
    let p = Position::start();
    assert_eq!(fen_of(&p), START_FEN);
    assert_eq!(p.hash(), p.compute_hash());
    assert_eq!(legal_moves(&p).len(), 20);
    assert_eq!(
        p.castle_rights(),
        WHITE_KINGSIDE | WHITE_QUEENSIDE | BLACK_KINGSIDE | BLACK_QUEENSIDE
    );
    assert_eq!(p.king_square(Color::White), 0x04);
    assert_eq!(p.piece_list(Color::Black)[0], 0x74);
    assert!(!p.in_check());
    // f3 is covered by the e2/g2 pawns and the g1 knight; e4 by nothing.
    assert!(p.is_square_attacked(0x25, Color::White));
    assert!(!p.is_square_attacked(0x34, Color::White));
    assert!(p.is_square_attacked(0x55, Color::Black));
    let mut e = Position::start();
    e.clear();
    assert_eq!(e.piece_at(0x04), 0);
}

#[test]
fn null_move_cuts_repetition_window() {
    let mut p = Position::start();
    play(&mut p, "g1f3 g8f6 f3g1 f6g8");
    assert_eq!(p.repetitions(), 1);
    let before = fen_of(&p);
    let null = p.make_null_move();
    assert_eq!(p.side_to_move(), Color::Black);
    assert_eq!(p.repetitions(), 0);
    let m = p.parse_coord(b"g8f6").expect("legal");
    let u = p.make_move(m);
    assert_eq!(p.repetitions(), 0, "never looks across the null move");
    p.unmake_move(m, &u);
    p.unmake_null_move(&null);
    assert_eq!(fen_of(&p), before);
    assert_eq!(p.repetitions(), 1);
}

/// `by` attacks `sq`: the textbook way, from every man of `by` on the board
/// (the firmware looks outward from `sq` instead).
fn attacked_naive(p: &Position, sq: u8, by: Color) -> bool {
    (0..128u8).filter(|s| s & 0x88 == 0).any(|from| {
        let code = p.piece_at(from);
        code != 0 && (code > 6) == (by == Color::Black) && man_attacks(p, from, sq)
    })
}

/// Does the man on `from` attack `sq`?
fn man_attacks(p: &Position, from: u8, sq: u8) -> bool {
    const KNIGHT_JUMPS: [i8; 8] = [-33, -31, -18, -14, 14, 18, 31, 33];
    const RAYS: [i8; 8] = [-17, -15, 15, 17, -16, -1, 1, 16];
    let code = p.piece_at(from);
    let white = code <= 6;
    let kind = if code > 6 { code - 6 } else { code };
    let hits = |d: i8| from.wrapping_add(d as u8) == sq;
    match kind {
        1 => hits(if white { 15 } else { -15 }) || hits(if white { 17 } else { -17 }),
        2 => KNIGHT_JUMPS.iter().any(|&d| hits(d)),
        6 => RAYS.iter().any(|&d| hits(d)),
        _ => RAYS.iter().enumerate().any(|(i, &d)| {
            if (kind == 3 && i >= 4) || (kind == 4 && i < 4) {
                return false;
            }
            let mut s = from.wrapping_add(d as u8);
            while s & 0x88 == 0 {
                if s == sq {
                    return true;
                }
                if p.piece_at(s) != 0 {
                    return false;
                }
                s = s.wrapping_add(d as u8);
            }
            false
        }),
    }
}

fn assert_attacks_match(p: &Position, context: &str) {
    for sq in (0..128u8).filter(|s| s & 0x88 == 0) {
        for by in [Color::White, Color::Black] {
            assert_eq!(p.is_square_attacked(sq, by), attacked_naive(p, sq, by), "square {sq:#04x} by {by:?} in {} ({context})", fen_of(p));
        }
    }
}

#[test]
fn attacks_match_a_naive_scan_through_promotions_and_takebacks() {
    // Pawns one step from promotion on both sides, with men to capture the
    // new officers: promoted men keep their pawn slots in the piece lists.
    const PROMOTING: &[&str] = &[
        "r3k2r/1P4P1/8/8/8/8/1p4p1/R3K2R w KQkq - 0 1",
        "7k/PPPPP3/8/8/8/8/3ppppp/K7 w - - 0 1",
        "n1n1k1n1/1P1P1P1P/8/8/8/8/p1p1p1p1/1N1NK1N1 b - - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    ];
    let mut rng = Rng(0x0FF1_CE0E_ED00_0002);
    let mut promotions = 0;
    for game in 0..120 {
        let start_fen = PROMOTING[game % PROMOTING.len()];
        let mut p = pos(start_fen);
        assert_attacks_match(&p, "start");
        let mut stack = Vec::new();
        for _ in 0..rng.below(60) {
            let moves = legal_moves(&p);
            if moves.is_empty() {
                break;
            }
            // Favour promotions and captures so promoted men get taken too.
            let m = moves.iter().copied().find(|m| m.is_promotion() && rng.below(2) == 0).unwrap_or(moves[rng.below(moves.len())]);
            promotions += m.is_promotion() as u32;
            let u = p.make_move(m);
            assert!(p.is_consistent(), "after {}", coord(m));
            assert_attacks_match(&p, &format!("after {}", coord(m)));
            stack.push((m, u));
        }
        while let Some((m, u)) = stack.pop() {
            p.unmake_move(m, &u);
            assert!(p.is_consistent(), "after taking back {}", coord(m));
            assert_attacks_match(&p, &format!("after taking back {}", coord(m)));
        }
        assert_eq!(fen_of(&p), start_fen);
    }
    assert!(promotions > 100, "only {promotions} promotions played");
}

/// Legality, "gives check" (before the move) and "in check after" (once
/// made) against the naive attack scan, for every pseudo-legal move along
/// random games from positions full of pins and discovered checks.
#[test]
fn pins_and_checks_match_a_naive_scan() {
    const LINED_UP: &[&str] = &[
        "4k3/8/4r3/8/1b2N2q/8/3PB3/r2NK2R w K - 0 1",
        "3qk3/3r4/8/b7/3N4/2B5/3R4/3QK3 w - - 0 1",
        "8/8/3k4/2n1n3/8/1B3R2/8/4K1Q1 w - - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "k7/1b6/8/3pP3/8/5K2/8/7q w - d6 0 1",
    ];
    let mut rng = Rng(0x0D15_C0DE_C4EC_0003);
    let (mut discovered, mut pinned) = (0u32, 0u32);
    for game in 0..60 {
        let mut p = pos(LINED_UP[game % LINED_UP.len()]);
        for _ in 0..40 {
            let us = p.side_to_move();
            let mut gen = MoveGen::new();
            while let Some(m) = gen.next(&p) {
                let mut q = p.clone();
                q.make_move(m);
                let illegal = attacked_naive(&q, q.king_square(us), us.other());
                assert_eq!(p.is_legal(m), !illegal, "legality of {} in {}", coord(m), fen_of(&p));
                pinned += (illegal && m.from() != p.king_square(us)) as u32;
                if illegal {
                    continue;
                }
                let check = attacked_naive(&q, q.king_square(us.other()), us);
                assert_eq!(q.in_check_after(m), check, "in check after {} in {}", coord(m), fen_of(&p));
                if !m.is_capture() && matches!(m.kind(), MoveKind::Normal | MoveKind::DoublePush) {
                    assert_eq!(p.gives_check(m), check, "gives check {} in {}", coord(m), fen_of(&p));
                    discovered += (check && !man_attacks(&q, m.to(), q.king_square(us.other()))) as u32;
                }
            }
            let moves = legal_moves(&p);
            if moves.is_empty() {
                break;
            }
            p.make_move(moves[rng.below(moves.len())]);
        }
    }
    assert!(discovered > 20 && pinned > 20, "only {discovered} discovered checks, {pinned} pinned moves");
}
