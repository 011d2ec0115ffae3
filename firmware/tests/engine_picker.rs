//! The staged picker yields every pseudo-legal move exactly once.

#[path = "engine_common.rs"]
mod common;
use common::*;
use firmware::chess::{Move, MoveGen, MoveKind, Position};
use firmware::engine::picker::{Picker, Stage};
use firmware::engine::see;
use firmware::chess::piece::{kind_of, PAWN};
use firmware::chess::square::rank_of;

fn pseudo(p: &Position) -> Vec<Move> {
    let mut g = MoveGen::new();
    let mut v = Vec::new();
    while let Some(m) = g.next(p) {
        v.push(m);
    }
    v
}

fn check(p: &Position, main: Move, killers: [Move; 2]) {
    let mut want = pseudo(p);
    want.sort_by_key(|m| m.0);
    let mut got = Vec::new();
    let mut stages = Vec::new();
    let mut pk = Picker::new(main, true);
    if p.in_check() {
        pk.evade(p);
    }
    while let Some((m, stage)) = pk.next(p, &killers) {
        got.push(m);
        stages.push(stage);
    }
    check_restricted_quiets(p, main, killers, &got, &stages);
    let mut sorted = got.clone();
    sorted.sort_by_key(|m| m.0);
    if p.in_check() {
        // In check the quiet stage leaves out the men that cannot answer
        // it: every legal move still comes, once, and nothing else but
        // pseudo-legal moves.
        sorted.dedup();
        assert_eq!(sorted.len(), got.len(), "a move twice in {}", fen_of(p));
        assert!(sorted.iter().all(|m| want.contains(m)), "not pseudo-legal in {}", fen_of(p));
        sorted.retain(|&m| p.is_legal(m));
    }
    assert_eq!(
        sorted.iter().map(|m| coord(*m)).collect::<Vec<_>>(),
        want.iter().filter(|&&m| !p.in_check() || p.is_legal(m)).map(|m| coord(*m)).collect::<Vec<_>>(),
        "picker vs generator"
    );
    // The exact check test of the quiescence checks stage.
    for &m in &want {
        if m.is_capture() || m.is_promotion() || m.kind() == MoveKind::Castle || !p.is_legal(m) {
            continue;
        }
        let mut q = p.clone();
        q.make_move(m);
        assert_eq!(p.gives_check(m), q.in_check(), "gives_check {} in {}", coord(m), fen_of(p));
    }
    // Quiescence picker: a subset of the captures and promotions.
    let mut q = Picker::quiescence();
    while let Some((m, _)) = q.next(p, &[Move::NONE; 2]) {
        assert!(m.is_capture() || m.is_promotion());
        assert!(want.contains(&m));
    }
    // With checks: its checks stage yields exactly the quiet checks that do
    // not lose the man (its pre-filter of the men must drop none).
    // The search reuses each ply's picker in place: start from one left
    // in the middle of its quiet moves in another position, so that no
    // state may leak into this one.
    if !p.in_check() {
        let other = pos("r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5");
        let mut q = Picker::new(Move::NONE, true);
        let mut quiets = 0;
        while let Some((_, stage)) = q.next(&other, &[Move::NONE; 2]) {
            quiets += (stage == Stage::Quiets) as u32;
            if quiets == 6 {
                break;
            }
        }
        q.reset(Move::NONE, false, true);
        q.allow_checks();
        let mut checks: Vec<String> = Vec::new();
        while let Some((m, stage)) = q.next(p, &[Move::NONE; 2]) {
            if stage == Stage::Checks {
                checks.push(coord(m));
            }
        }
        checks.sort();
        let mut expect: Vec<String> = want
            .iter()
            .filter(|m| !m.is_capture() && !m.is_promotion() && m.kind() != MoveKind::Castle)
            .filter(|m| p.gives_check(**m) && see(p, **m) >= 0)
            .map(|m| coord(*m))
            .collect();
        expect.sort();
        assert_eq!(checks, expect, "checks stage in {}", fen_of(p));
    }
}

/// The search's futility and late-move pruning, once set in during the
/// hanging-men or quiet stage, lets the picker skip the quiet moves that
/// cannot give check or push a pawn to the 7th
/// ([`Picker::restrict_quiets`]): from any such point on, the picker must
/// still yield, in the same order, every legal move the search would
/// not prune, and nothing it did not yield before.
fn check_restricted_quiets(p: &Position, main: Move, killers: [Move; 2], got: &[Move], stages: &[Stage]) {
    let late: Vec<usize> = (0..got.len()).filter(|&i| matches!(stages[i], Stage::Hanging | Stage::Quiets)).collect();
    let Some(&last) = late.last() else { return };
    let seventh = if p.side_to_move() == firmware::chess::Color::White { 6 } else { 1 };
    let prunable = |m: Move| {
        matches!(m.kind(), MoveKind::Normal | MoveKind::DoublePush)
            && !m.is_capture()
            && !p.gives_check(m)
            && (kind_of(p.piece_at(m.from())) != PAWN || rank_of(m.to()) != seventh)
    };
    for cut in [late[0], late[late.len() / 2], last] {
        let mut pk = Picker::new(main, true);
        if p.in_check() {
            pk.evade(p);
        }
        for _ in 0..=cut {
            pk.next(p, &killers);
        }
        pk.restrict_quiets();
        let mut rest = Vec::new();
        while let Some((m, _)) = pk.next(p, &killers) {
            rest.push(m);
        }
        let before = &got[cut + 1..];
        let mut it = before.iter();
        for m in &rest {
            assert!(it.any(|x| x == m), "restricted picker: {} out of order or new in {}", coord(*m), fen_of(p));
        }
        for m in before {
            if p.is_legal(*m) && !prunable(*m) {
                assert!(rest.contains(m), "restricted picker dropped {} in {}", coord(*m), fen_of(p));
            }
        }
    }
}

fn fen_of(p: &Position) -> String {
    let mut b = [0u8; 100];
    let n = p.write_fen(&mut b).unwrap();
    String::from_utf8_lossy(&b[..n]).into_owned()
}

fn walk(p: &mut Position, depth: u8, killers: &mut [Move; 2]) {
    let moves = pseudo(p);
    let main = moves.get(moves.len() / 2).copied().unwrap_or(Move::NONE);
    check(p, main, *killers);
    check(p, Move::NONE, [Move::NONE; 2]);
    if depth == 0 {
        return;
    }
    for (i, m) in moves.iter().enumerate() {
        if !p.is_legal(*m) {
            continue;
        }
        if i % 3 == 0 && !m.is_capture() {
            killers[i % 2] = *m;
        }
        let u = p.make_move(*m);
        walk(p, depth - 1, killers);
        p.unmake_move(*m, &u);
    }
}

#[test]
fn picker_yields_each_move_once() {
    let mut n = 0;
    for line in std::fs::read_to_string(testdata("perft.epd")).unwrap().lines() {
        let fen = line.split(';').next().unwrap().trim();
        if fen.is_empty() {
            continue;
        }
        let mut p = pos(fen);
        let mut k = [Move::NONE; 2];
        walk(&mut p, 2, &mut k);
        n += 1;
    }
    for e in bench_positions().iter().take(8) {
        let mut p = pos(&e.fen);
        let mut k = [Move::NONE; 2];
        walk(&mut p, 1, &mut k);
        n += 1;
    }
    for e in load_epd(&testdata("wac.epd")).iter() {
        let mut p = pos(&e.fen);
        let mut k = [Move::NONE; 2];
        walk(&mut p, 1, &mut k);
        n += 1;
    }
    assert!(n > 10);
}

/// Endings where no man of the side to move can give check, and where
/// only a few can: the checks stage must then yield nothing, or only
/// their checks, whatever the reused picker did before.
#[test]
fn checks_stage_in_endings() {
    for fen in [
        "4k3/8/8/8/8/8/3P4/4K3 w - - 0 1",
        "8/8/4k3/8/8/2B5/3P4/4K3 w - - 0 1",
        "8/8/4k3/8/3P4/8/6B1/4K3 w - - 0 1",
        "8/5k2/8/8/8/8/1B1P4/4K3 w - - 0 1",
    ] {
        let mut p = pos(fen);
        let mut k = [Move::NONE; 2];
        walk(&mut p, 1, &mut k);
    }
}

/// In check, the quiet stage generates the moves of the men that may
/// answer it only: every legal move still comes (blocks by a pawn's step
/// and double step, by an officer, a pawn on the 7th taking the checker
/// with an under-promotion), and men with no answer are skipped (a
/// knight's check, a double check, men off the line).
#[test]
fn in_check_the_quiet_stage_keeps_every_answer() {
    for (fen, skips) in [
        ("7R/8/8/8/r6K/2P5/1P2N3/k7 w - - 0 1", true),
        ("8/1p2n3/2p5/R6k/8/8/4K3/7r b - - 0 1", true),
        ("3r3k/4P3/8/8/8/8/8/3K4 w - - 0 1", false),
        ("4k3/8/8/8/1b6/5n2/8/R3K3 w - - 0 1", true),
        ("4k3/8/8/8/8/5n2/3PP3/R3K3 w - - 0 1", true),
        ("4k3/8/8/8/8/8/3p4/R3K2R w KQ - 0 1", true),
        ("4k3/8/8/8/1b6/8/8/R2QK2R w KQ - 0 1", true),
    ] {
        let p = pos(fen);
        assert!(p.in_check(), "{fen}");
        check(&p, Move::NONE, [Move::NONE; 2]);
        let mut pk = Picker::new(Move::NONE, true);
        pk.evade(&p);
        let mut n = 0;
        while pk.next(&p, &[Move::NONE; 2]).is_some() {
            n += 1;
        }
        assert_eq!(n < pseudo(&p).len(), skips, "{fen}: {n} of {}", pseudo(&p).len());
    }
}
