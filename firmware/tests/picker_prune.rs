//! Quiescence's delta pruning in the picker ([`Picker::prune_victims`])
//! leaves out exactly the captures of victims worth `floor` or less: the
//! moves it yields are those of the unpruned picker, in the same order,
//! less those captures. (A single victim kept is asked whether it is
//! attacked at all instead of the scan of all our men: both answers are
//! met here.)

#[path = "engine_common.rs"]
mod common;
use common::*;
use firmware::chess::piece::kind_of;
use firmware::chess::{Move, MoveGen, Position};
use firmware::engine::eval::VALUE;
use firmware::engine::picker::{Picker, Stage};

fn quiescence_moves(p: &Position, floor: i16) -> Vec<(Move, Stage)> {
    let mut pk = Picker::quiescence();
    pk.reset(Move::NONE, false, true);
    pk.prune_victims(p, floor, false);
    let mut v = Vec::new();
    while let Some(x) = pk.next(p, &[Move::NONE; 2]) {
        v.push(x);
    }
    v
}

fn victim_value(p: &Position, m: Move) -> i16 {
    VALUE.get(kind_of(p.code_on(m.to())) as usize)
}

/// Compares the pruned pickers of `p` with the unpruned one; counts the
/// floors that kept one victim, attacked and not.
fn check(p: &Position, single: &mut [u32; 2]) {
    if p.in_check() {
        return;
    }
    let all = quiescence_moves(p, i16::MIN);
    let them = p.side_to_move().other();
    let mut values: Vec<i16> = p
        .piece_list(them)
        .iter()
        .skip(1)
        .filter(|&&s| s != firmware::chess::square::NO_SQUARE)
        .map(|&s| VALUE.get(kind_of(p.code_on(s)) as usize))
        .collect();
    values.sort();
    let mut floors: Vec<i16> = vec![100, 250, 320, 340, 480, 520, 880, 950, 2000];
    for &v in &values {
        floors.push(v);
        floors.push(v - 1);
    }
    for floor in floors {
        if floor < VALUE.get(1) {
            continue;
        }
        let want: Vec<(Move, Stage)> = all
            .iter()
            .copied()
            .filter(|&(m, s)| !matches!(s, Stage::WinningCaptures | Stage::EqualCaptures) || victim_value(p, m) > floor)
            .collect();
        let got = quiescence_moves(p, floor);
        assert_eq!(got, want, "{} floor {floor}", fen_of(p));
        let kept = values.iter().filter(|&&v| v > floor).count();
        if kept == 1 {
            single[!want.is_empty() as usize] += 1;
        }
    }
}

fn fen_of(p: &Position) -> String {
    let mut b = [0u8; 100];
    let n = p.write_fen(&mut b).unwrap();
    String::from_utf8_lossy(&b[..n]).into_owned()
}

fn walk(p: &mut Position, depth: u8, single: &mut [u32; 2]) {
    check(p, single);
    if depth == 0 {
        return;
    }
    let mut g = MoveGen::new();
    let mut moves = Vec::new();
    while let Some(m) = g.next(p) {
        moves.push(m);
    }
    for m in moves {
        if !p.is_legal(m) {
            continue;
        }
        let u = p.make_move(m);
        walk(p, depth - 1, single);
        p.unmake_move(m, &u);
    }
}

#[test]
fn pruned_victims_leave_exactly_their_captures_out() {
    let mut single = [0u32; 2];
    for e in bench_positions().iter() {
        let mut p = pos(&e.fen);
        walk(&mut p, 1, &mut single);
    }
    for e in load_epd(&testdata("wac.epd")).iter().take(60) {
        let mut p = pos(&e.fen);
        walk(&mut p, 1, &mut single);
    }
    // Floors that kept one victim: not attacked (nothing yielded, at
    // least where no promotion or en passant came), and attacked.
    assert!(single[0] > 100 && single[1] > 100, "{single:?}");
}
