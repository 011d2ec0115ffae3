//! Win At Chess: how many of the first 100 positions are solved within a
//! fixed node budget (WAC_NODES, default 100,000) on the host. WAC_COUNT
//! takes more (or fewer) of the file, e.g. all 299 at the AVR's budget of
//! about 5,000 nodes per 10 s move: `WAC_COUNT=299 WAC_NODES=5000`.
//! WAC_ID=104 searches WAC.104 alone, printing its iterations.

#[path = "engine_common.rs"]
mod common;
use common::*;
use firmware::engine::*;

#[test]
fn wac_first_100() {
    let budget: u32 = std::env::var("WAC_NODES").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let count: usize = std::env::var("WAC_COUNT").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let verbose = std::env::var("WAC_VERBOSE").is_ok();
    let only = std::env::var("WAC_ID").ok().map(|id| format!("WAC.{id}"));
    let cases = load_epd(&testdata("wac.epd"));
    let mut solved = 0;
    let mut failed = Vec::new();
    let mut total_nodes = 0u64;
    let t0 = std::time::Instant::now();
    let chosen: Vec<_> = cases.iter().filter(|c| only.is_none() || c.op("id") == only.as_deref()).take(count).collect();
    assert!(!chosen.is_empty(), "no WAC position {only:?}");
    for c in &chosen {
        let mut p = pos(&c.fen);
        let bms: Vec<_> = c
            .op("bm")
            .unwrap()
            .split_whitespace()
            .map(|s| parse_san(&p, s).unwrap_or_else(|| panic!("bm {s} in {}", c.fen)))
            .collect();
        let mut e = Engine::new();
        e.lmr = std::env::var("BENCH_LMR").map_or(true, |v| v != "0");
        e.null_move = std::env::var("BENCH_NULL").map_or(true, |v| v != "0");
        e.pruning = std::env::var("BENCH_PRUNE").map_or(true, |v| v != "0");
        let mut h = RealHost::new();
        h.verbose = only.is_some();
        let r = e.search(&mut p, &SearchLimits::nodes(budget), &mut h);
        total_nodes += r.nodes as u64;
        if bms.contains(&r.best) {
            solved += 1;
        } else {
            failed.push(c.op("id").unwrap().to_string());
            if verbose {
                println!("{} got {} {:?} d{}", c.op("id").unwrap(), coord(r.best), r.score(), r.depth);
            }
        }
    }
    let ms = t0.elapsed().as_millis().max(1) as u64;
    println!("WAC: {solved}/{} solved at {budget} nodes ({} nps)", chosen.len(), total_nodes * 1000 / ms);
    println!("failed: {}", failed.join(" "));
    if count == 100 && only.is_none() {
        assert!(solved >= 60, "{solved}/100");
    }
}
