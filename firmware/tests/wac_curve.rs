//! WAC tuning aids (host).
//!
//! * `wac_curve` (ignored): one search per position at 12,000 nodes, noting
//!   when the root's best move changed; prints how many positions are
//!   solved at each of several budgets from 2,000 up, from that one run
//!   (close to separate runs at each budget, within one or two positions):
//!   `cargo test --release -p firmware --test wac_curve -- --ignored --nocapture`
//! * `wac_one`: the iterations of one position, `WAC_ID=104` (and
//!   optionally `WAC_NODES`, default 9,000); does nothing without WAC_ID.

#[path = "engine_common.rs"]
mod common;
use common::*;
use firmware::chess::Move;
use firmware::engine::*;

/// Records the node counts at which the reported best move changed.
struct Changes {
    inner: RealHost,
    changes: Vec<(u32, Move)>,
}

impl SearchHost for Changes {
    fn now_ms(&mut self) -> u32 {
        self.inner.now_ms()
    }
    fn stop_requested(&mut self) -> bool {
        false
    }
    fn report(&mut self, info: &SearchInfo) {
        if let Some(&m) = info.pv.first() {
            if self.changes.last().map(|c| c.1) != Some(m) {
                self.changes.push((info.nodes, m));
            }
        }
    }
}

#[test]
#[ignore]
fn wac_curve() {
    let budgets = [2000u32, 2500, 3000, 3500, 4000, 4500, 5000, 6000, 7000, 9000, 12000];
    let cap = budgets[budgets.len() - 1];
    let mut solved = [0u32; 11];
    for c in load_epd(&testdata("wac.epd")) {
        let mut p = pos(&c.fen);
        let bms: Vec<_> = c.op("bm").unwrap().split_whitespace().map(|s| parse_san(&p, s).unwrap()).collect();
        let mut e = Engine::new();
        let mut h = Changes { inner: RealHost::new(), changes: Vec::new() };
        e.search(&mut p, &SearchLimits::nodes(cap), &mut h);
        for (i, &b) in budgets.iter().enumerate() {
            // The best move as of b nodes: the last change reported by then.
            let m = h.changes.iter().rev().find(|c| c.0 <= b).map(|c| c.1);
            if m.is_some_and(|m| bms.contains(&m)) {
                solved[i] += 1;
            }
        }
    }
    let line: Vec<String> = budgets.iter().zip(&solved).map(|(b, s)| format!("{}:{}", b / 100, s)).collect();
    println!("CURVE {} sum {}", line.join(" "), solved.iter().sum::<u32>());
}

#[test]
fn wac_one() {
    let Ok(id) = std::env::var("WAC_ID") else { return };
    let nodes: u32 = std::env::var("WAC_NODES").ok().and_then(|v| v.parse().ok()).unwrap_or(9000);
    for c in load_epd(&testdata("wac.epd")) {
        if c.op("id").unwrap() != format!("WAC.{id}") {
            continue;
        }
        println!("{} bm {}", c.fen, c.op("bm").unwrap());
        let mut p = pos(&c.fen);
        let mut e = Engine::new();
        let mut h = RealHost::new();
        h.verbose = true;
        let r = e.search(&mut p, &SearchLimits::nodes(nodes), &mut h);
        println!("best {} {:?} nodes {}", coord(r.best), r.score(), r.nodes);
    }
}
