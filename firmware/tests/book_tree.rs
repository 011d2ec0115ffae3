//! The committed opening book against the firmware's own chess code: every
//! record of `assets/book.bin`, on every path from the root, names exactly
//! one legal move (the book keeps only a key of each move, its rank among
//! the legal moves, see `firmware::book`; `cargo xtask book build` ranks
//! them with another move generator), and `Game::book_move` plays those
//! moves.

#[path = "engine_common.rs"]
mod common;
use common::{coord, legal_moves};
use firmware::book::{book, Key};
use firmware::chess::{Move, Position};
use firmware::game::{book_key, Game};

/// A book position: the moves to it and each candidate's key, weight and
/// the one legal move with that key.
struct Node {
    line: Vec<Move>,
    candidates: Vec<(Key, u8, Move)>,
}

/// Walks the whole tree depth first from the initial position; panics
/// unless every record resolves to exactly one legal move.
fn walk() -> (Vec<Node>, usize) {
    let b = book();
    let mut nodes = Vec::new();
    let mut records = 0;
    let mut stack = vec![(Position::start(), Vec::<Move>::new(), Vec::<Key>::new())];
    while let Some((pos, line, history)) = stack.pop() {
        let Some(list) = b.position(history.iter().copied()) else { continue };
        let mut keys = Vec::new();
        b.for_each_candidate(list, |k, w| keys.push((k, w)));
        let legal = legal_moves(&pos);
        let path = || line.iter().map(|&m| coord(m)).collect::<Vec<_>>().join(" ");
        let mut candidates = Vec::new();
        for (k, w) in keys {
            records += 1;
            let matching: Vec<Move> = legal.iter().copied().filter(|&m| book_key(&pos, m) == k).collect();
            assert_eq!(
                matching.len(),
                1,
                "after `{}`: record with key {k:#05x} matches {:?}",
                path(),
                matching.iter().map(|&m| coord(m)).collect::<Vec<_>>()
            );
            let m = matching[0];
            assert_eq!(m.promotion(), 0, "book moves never promote");
            candidates.push((k, w, m));
            let mut next = pos.clone();
            next.make_move(m);
            let mut l = line.clone();
            l.push(m);
            let mut h = history.clone();
            h.push(k);
            stack.push((next, l, h));
        }
        nodes.push(Node { line, candidates });
    }
    (nodes, records)
}

#[test]
fn every_record_is_exactly_one_legal_move() {
    let (nodes, records) = walk();
    // The walk reached every record of the blob, so each was checked.
    assert_eq!(records, book().moves());
    assert!(records >= 3000, "{records}");
    assert!(nodes.len() > 1000, "{} positions", nodes.len());
}

#[test]
fn book_move_plays_the_book_along_every_line() {
    let (nodes, _) = walk();
    let lines: std::collections::HashSet<Vec<u16>> = nodes.iter().map(|n| n.line.iter().map(|m| m.0).collect()).collect();
    let mut checked = 0;
    for node in &nodes {
        let mut g = Game::default();
        for &m in &node.line {
            g.play(m);
        }
        let total: u16 = node.candidates.iter().map(|c| u16::from(c.1)).sum();
        // Each random number picks the candidate its weights say, and the
        // game resolves it to that candidate's move in the real position.
        for r in 0..total {
            let mut left = r;
            let want = node
                .candidates
                .iter()
                .find(|c| {
                    let hit = left < u16::from(c.1);
                    left = left.wrapping_sub(u16::from(c.1));
                    hit
                })
                .unwrap()
                .2;
            let got = g.book_move(r + 7 * total);
            assert_eq!(
                got.map(coord),
                Some(coord(want)),
                "after `{}`, random {}",
                node.line.iter().map(|&m| coord(m)).collect::<Vec<_>>().join(" "),
                r + 7 * total
            );
            checked += 1;
        }
        // A candidate leads to another book position exactly when its
        // record has children: there the game is still in book, after a
        // leaf it is out.
        for &(_, _, m) in &node.candidates {
            let mut h = Game::default();
            for &x in node.line.iter().chain([&m]) {
                h.play(x);
            }
            let key: Vec<u16> = node.line.iter().chain([&m]).map(|x| x.0).collect();
            assert_eq!(h.book_move(0).is_some(), lines.contains(&key), "after `{}` {}", node.line.iter().map(|&m| coord(m)).collect::<Vec<_>>().join(" "), coord(m));
        }
    }
    assert!(checked >= nodes.len());
}
