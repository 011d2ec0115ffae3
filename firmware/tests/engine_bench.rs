//! Node counts and speed on assets/bench_positions.epd.
//!
//! `cargo test -p firmware --release --test engine_bench -- --ignored --nocapture`
//! prints nodes to reach a fixed depth per position and the host nps.
//! Environment: BENCH_DEPTH (default 7), BENCH_LMR / BENCH_NULL /
//! BENCH_PRUNE = 0 to switch a feature off for a measurement.

#[path = "engine_common.rs"]
mod common;
use common::*;
use firmware::engine::*;
use std::time::Instant;

#[test]
fn bench_positions_are_valid() {
    let list = bench_positions();
    assert!(list.len() >= 20);
    for e in &list {
        let p = pos(&e.fen);
        assert!(p.is_consistent(), "{}", e.fen);
        assert!(!legal_moves(&p).is_empty(), "{}", e.fen);
        assert!(e.op("id").is_some());
        // The side not to move must not be in check.
        let mut q = p.clone();
        let u = q.make_null_move();
        assert!(!q.in_check(), "side not to move in check: {}", e.fen);
        q.unmake_null_move(&u);
    }
}

fn env_flag(name: &str) -> bool {
    std::env::var(name).map(|v| v != "0").unwrap_or(true)
}

#[test]
#[ignore]
fn bench() {
    let depth: u8 = std::env::var("BENCH_DEPTH").ok().and_then(|v| v.parse().ok()).unwrap_or(7);
    let mut total = 0u64;
    let t0 = Instant::now();
    for e in bench_positions() {
        let mut p = pos(&e.fen);
        let mut eng = Engine::new();
        eng.lmr = env_flag("BENCH_LMR");
        eng.null_move = env_flag("BENCH_NULL");
        eng.pruning = env_flag("BENCH_PRUNE");
        let mut h = RealHost::new();
        let r = eng.search(&mut p, &SearchLimits::depth(depth), &mut h);
        println!("{:>9} {:>6} {:?} {}", r.nodes, coord(r.best), r.score(), e.op("id").unwrap());
        total += r.nodes as u64;
    }
    let ms = t0.elapsed().as_millis().max(1) as u64;
    println!("depth {depth}: {total} nodes, {ms} ms, {} nps", total * 1000 / ms);
}
