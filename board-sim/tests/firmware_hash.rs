//! The AVR's incremental keys equal the host's computed ones: along
//! random games, each move played by the firmware's `moves` command (its
//! assembly make, then unmake and make again through the game), the
//! position's Zobrist hash and pawn key in the firmware's SRAM must be
//! those the host computes from scratch for the same position.
//!
//! The search test (`firmware_search.rs`) cannot see a wrong hash unless
//! it changes a repetition: a make that skipped a piece's key with an
//! en-passant square standing kept the bench's tree and perft.
//!
//! Needs the AVR build: `cargo xtask test` builds it and passes its path in
//! `PRODIGY_ELF`.

mod common;

use board_sim::board::Board;
use common::{ask, boot, coord, fen};
use firmware::chess::{Move, MoveGen, MoveKind, Position};

/// Starting points rich in castling, en passant and promotions.
const FENS: [&str; 7] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "1r1qk1nr/P1P2pPp/8/1pPpP3/8/8/pp1p1PpP/RN2K1R1 w - d6 0 1",
    "r1n3r1/1P1P1P1P/7k/3pP3/2pP4/4K3/1p5p/R1N3R1 b - d3 0 1",
    "4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 1",
];

/// The offsets in `bytes` where `value` (little-endian) stands.
fn offsets_of(bytes: &[u8], value: &[u8]) -> Vec<usize> {
    (0..=bytes.len().saturating_sub(value.len())).filter(|&i| &bytes[i..i + value.len()] == value).collect()
}

/// The one offset where every position's value stands in its image.
fn the_offset(samples: &[(Vec<u8>, Vec<u8>)], what: &str) -> usize {
    let mut left: Vec<usize> = offsets_of(&samples[0].0, &samples[0].1);
    for (bytes, value) in &samples[1..] {
        let here = offsets_of(bytes, value);
        left.retain(|o| here.contains(o));
    }
    assert_eq!(left.len(), 1, "the {what} is at one offset of the AVR's position: {left:?}");
    left[0]
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn the_avr_keys_after_each_move_are_the_keys_computed_from_scratch() {
    let mut b = boot();
    let symbol = b.avr.symbols().symbols.iter().find(|s| s.name == "CHESS_POSITION").cloned().expect("the symbol CHESS_POSITION");
    let (address, size) = (symbol.address as u16, symbol.size as u16);
    assert!(size > 128, "CHESS_POSITION is a whole position: {size} B");
    let image = |b: &Board| -> Vec<u8> { (address..address + size).map(|a| b.avr.read_data(a).expect("SRAM")).collect() };

    // Where the keys are: the `fen` command computes them from scratch,
    // so each start position's keys stand in the image; one offset holds
    // them in all.
    let mut hashes = Vec::new();
    let mut pawn_keys = Vec::new();
    for start in FENS {
        assert_eq!(ask(&mut b, &format!("fen {start}")), "ok", "{start}");
        let pos = Position::from_fen(start.as_bytes()).unwrap_or_else(|e| panic!("{start}: {e:?}"));
        assert_eq!(pos.hash(), pos.compute_hash(), "{start}: the host's keys");
        hashes.push((image(&b), pos.hash().to_le_bytes().to_vec()));
        pawn_keys.push((image(&b), pos.pawn_key().to_le_bytes().to_vec()));
    }
    let hash_at = the_offset(&hashes, "hash");
    let pawn_key_at = the_offset(&pawn_keys, "pawn key");

    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let (mut moves, mut en_passant, mut castles, mut promotions, mut double_steps) = (0u32, 0u32, 0u32, 0u32, 0u32);
    for start in FENS {
        for _game in 0..6 {
            assert_eq!(ask(&mut b, &format!("fen {start}")), "ok", "{start}");
            let mut pos = Position::from_fen(start.as_bytes()).unwrap();
            for _ply in 0..40 {
                let mut legal = Vec::new();
                let mut gen = MoveGen::new();
                while let Some(m) = gen.next_legal(&pos) {
                    legal.push(m);
                }
                if legal.is_empty() || pos.halfmove_clock() >= 100 {
                    break;
                }
                // Special moves first when there are any: they are rare.
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let special: Vec<Move> = legal.iter().copied().filter(|m| !m.is(MoveKind::Normal) || m.is_capture()).collect();
                let pool = if !special.is_empty() && seed >> 62 != 0 { &special } else { &legal };
                let m = pool[(seed >> 33) as usize % pool.len()];
                let before = fen(&pos);
                assert_eq!(ask(&mut b, &format!("moves {}", coord(m))), "ok", "{before} {}", coord(m));
                pos.make_move(m);
                let avr = image(&b);
                let hash = u32::from_le_bytes(avr[hash_at..hash_at + 4].try_into().unwrap());
                let pawn_key = u16::from_le_bytes(avr[pawn_key_at..pawn_key_at + 2].try_into().unwrap());
                let fresh = Position::from_fen(fen(&pos).as_bytes()).unwrap();
                assert_eq!(pos.hash(), fresh.compute_hash(), "{before} {}: the host's hash, computed", coord(m));
                assert_eq!(hash, fresh.compute_hash(), "{before} {}: the AVR's hash, computed", coord(m));
                assert_eq!(pawn_key, fresh.pawn_key(), "{before} {}: the AVR's pawn key, computed", coord(m));
                moves += 1;
                en_passant += m.is(MoveKind::EnPassant) as u32;
                castles += m.is(MoveKind::Castle) as u32;
                promotions += m.is_promotion() as u32;
                double_steps += m.is(MoveKind::DoublePush) as u32;
            }
        }
    }
    eprintln!("{moves} moves: {en_passant} en passant, {castles} castles, {promotions} promotions, {double_steps} double steps");
    assert!(
        moves >= 1_000 && en_passant >= 10 && castles >= 10 && promotions >= 20 && double_steps >= 50,
        "{moves} {en_passant} {castles} {promotions} {double_steps}"
    );
}

/// The AVR's game status (`status?`) after each move of long games equals
/// the host's: the repetition count reads the AVR's history ring, which
/// its assembly make and take-back push and pop, so games past the ring's
/// length (it keeps the last hundred) cover its wrap. Late in each game a
/// side often steps back where it came from, so repetitions happen there.
#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn the_avr_game_status_after_each_move_of_long_games_is_the_hosts() {
    use firmware::chess::GameStatus;
    let mut b = boot();
    let start = FENS[0];
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let (mut moves, mut repetitions_late, mut longest) = (0u32, 0u32, 0u32);
    for _game in 0..16 {
        assert_eq!(ask(&mut b, &format!("fen {start}")), "ok");
        let mut pos = Position::from_fen(start.as_bytes()).unwrap();
        let mut played: Vec<Move> = Vec::new();
        for ply in 0..400u32 {
            let mut legal = Vec::new();
            let mut gen = MoveGen::new();
            while let Some(m) = gen.next_legal(&pos) {
                legal.push(m);
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Past the ring's length, mostly the side's last move back.
            let back = played.len().checked_sub(2).map(|i| played[i]).and_then(|last| {
                legal.iter().copied().find(|m| m.from() == last.to() && m.to() == last.from() && !m.is_capture())
            });
            let m = match back {
                Some(m) if ply >= 110 && seed >> 62 != 0 => m,
                _ => legal[(seed >> 33) as usize % legal.len()],
            };
            assert_eq!(ask(&mut b, &format!("moves {}", coord(m))), "ok", "{} {}", fen(&pos), coord(m));
            pos.make_move(m);
            played.push(m);
            moves += 1;
            let host = pos.status();
            let expected = match host {
                GameStatus::Ongoing => "ongoing",
                GameStatus::Checkmate => "checkmate",
                GameStatus::Stalemate => "stalemate",
                GameStatus::DrawFiftyMoves => "draw fifty",
                GameStatus::DrawThreefold => "draw repetition",
                GameStatus::DrawInsufficientMaterial => "draw material",
            };
            assert_eq!(ask(&mut b, "status?"), format!("status {expected}"), "{} after {} plies", fen(&pos), ply + 1);
            if host != GameStatus::Ongoing {
                repetitions_late += (host == GameStatus::DrawThreefold && ply >= 110) as u32;
                break;
            }
            longest = longest.max(ply + 1);
        }
    }
    eprintln!("{moves} moves, {repetitions_late} threefold repetitions past ply 110, longest game {longest} plies");
    assert!(moves >= 1_200 && repetitions_late >= 5 && longest >= 125, "{moves} {repetitions_late} {longest}");
}
