//! `cargo xtask tune fit` finds a weight again: positions scored by the
//! firmware's own evaluation with the bishop pair worth 90 instead of its
//! default are fitted on the evaluation's scale without the pull towards
//! the defaults, and the fit must give back about 90 with a smaller loss.
//! (A process of its own: the labels are made by setting the live weight,
//! which no other test in this binary touches.)

use firmware::chess::{MoveGen, Position};
use firmware::engine::weights::{live, Scalar, BISHOP_PAIR};
use std::process::Command;

/// Positions after random games from the initial position (a fixed seed).
fn random_positions(count: usize) -> Vec<String> {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::from_fen(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").unwrap();
        let plies = 10 + next() % 50;
        for _ in 0..plies {
            let mut moves = Vec::new();
            let mut g = MoveGen::new();
            while let Some(m) = g.next_legal(&pos) {
                moves.push(m);
            }
            if moves.is_empty() {
                break;
            }
            pos.make_move(moves[(next() % moves.len() as u64) as usize]);
        }
        let mut buf = [0u8; 128];
        let n = pos.write_fen(&mut buf).unwrap();
        out.push(String::from_utf8(buf[..n].to_vec()).unwrap());
    }
    out
}

#[test]
fn the_fit_recovers_a_changed_weight() {
    let fens = random_positions(1500);
    live::set(Scalar::BISHOP_PAIR as usize, 90);
    let mut tsv = String::new();
    for f in &fens {
        let e = firmware::engine::eval(&Position::from_fen(f.as_bytes()).unwrap());
        tsv.push_str(&format!("{f}\t{e}\n"));
    }
    live::set(Scalar::BISHOP_PAIR as usize, BISHOP_PAIR);
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("positions.tsv");
    std::fs::write(&data, tsv).unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["tune", "fit", data.to_str().unwrap(), "--only", "BISHOP_PAIR", "--rounds", "1", "--steps", "400", "--scale", "1", "--lambda", "0"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let fitted: i16 = stdout
        .lines()
        .find_map(|l| l.trim().strip_prefix("BISHOP_PAIR = "))
        .and_then(|v| v.split(';').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no BISHOP_PAIR line in:\n{stdout}"));
    assert!((85..=95).contains(&fitted), "fitted {fitted}:\n{stdout}");
    // The loss falls (fit and held out).
    let losses = |prefix: &str| -> Vec<f64> {
        let l = stdout.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no {prefix} line:\n{stdout}"));
        l.split([' ', ','])
            .filter(|w| w.contains('.'))
            .filter_map(|w| w.parse::<f64>().ok().filter(|v| *v < 1.0))
            .collect()
    };
    let (before, after) = (losses("fit:"), losses("round 1:"));
    assert!(after[0] < before[before.len() - 2] && after[1] < before[before.len() - 1], "{stdout}");
}
