//! Perft against the reference counts in `shared/testdata/perft.epd`.

use firmware::chess::Position;
use std::time::Instant;

/// One EPD line: FEN plus `;Dn count` entries.
struct Case {
    fen: String,
    counts: Vec<(u8, u64)>,
}

fn load_cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/testdata/perft.epd"
    );
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("perft test data missing: cannot read {path}: {e}"));
    let mut cases = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut parts = line.split(';');
        let fen = parts.next().expect("line has a FEN").trim().to_string();
        let mut counts = Vec::new();
        for p in parts {
            let p = p.trim();
            let (d, n) = p
                .split_once(' ')
                .unwrap_or_else(|| panic!("bad EPD entry {p:?}"));
            let depth: u8 = d.trim_start_matches('D').parse().expect("depth");
            counts.push((depth, n.trim().parse().expect("count")));
        }
        cases.push(Case { fen, counts });
    }
    assert!(!cases.is_empty(), "{path} holds no positions");
    cases
}

fn run(max_depth: u8) -> (u64, f64) {
    let mut total = 0;
    let t = Instant::now();
    for case in load_cases() {
        let mut pos = Position::from_fen(case.fen.as_bytes()).expect("EPD FEN parses");
        for &(depth, expected) in case.counts.iter().filter(|(d, _)| *d <= max_depth) {
            let got = u64::from(pos.perft(depth));
            assert_eq!(got, expected, "perft({depth}) of {}", case.fen);
            assert!(pos.is_consistent());
            total += got;
        }
    }
    (total, t.elapsed().as_secs_f64())
}

#[test]
fn perft_up_to_depth4_all() {
    let (nodes, secs) = run(4);
    eprintln!("perft depth<=4: {nodes} leaves in {secs:.2}s");
}

#[test]
#[ignore = "slow: run with --release -- --ignored"]
fn perft_depth5_all() {
    let (nodes, secs) = run(5);
    eprintln!(
        "perft depth<=5: {nodes} leaves in {secs:.2}s ({:.1} Mleaves/s)",
        nodes as f64 / secs / 1e6
    );
}
